package dev.tensorbuf.views.indexing.internal;

import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Emits one hidden class per expression whose {@code eval} is the expression as straight-line
 * bytecode: no tree walk, no virtual calls inside, so the JIT sees a handful of intrinsic
 * {@code Math} calls. A tree of {@link EvalNode}s is the fallback when emission fails.
 */
public final class BytecodeEval {
    private static final ClassDesc CD_EVAL_NODE = ClassDesc.of(EvalNode.class.getName());
    private static final ClassDesc CD_MATH = ClassDesc.of("java.lang.Math");
    private static final ClassDesc CD_SELF = ClassDesc.of(BytecodeEval.class.getName());
    private static final ClassDesc CD_LONG_ARRAY = CD_long.arrayType();
    private static final MethodTypeDesc JJ_J = MethodTypeDesc.of(CD_long, CD_long, CD_long);

    private BytecodeEval() {}

    /** The operations of an expression, in the shape the emitter needs. */
    public sealed interface Ex {
        /** A variable: kind 0 dim, 1 range var, 2 runtime var. */
        record Var(int kind, int index) implements Ex {}

        /** A constant. */
        record Lit(long value) implements Ex {}

        /** A binary operation. */
        record Bin(EvalNode.Op op, Ex a, Ex b) implements Ex {}
    }

    /** The JVM's limit on a method's bytecode (JVMS 4.7.3: {@code code_length < 65536}). */
    static final int MAX_CODE_BYTES = 65_535;

    /**
     * {@return whether the bytecode of {@code e} surely fits one method} It counts the most bytes
     * {@link #emit} can write per node (a variable 5, a constant 3, an operation 3) plus the
     * return, without recursion, so a tree too deep or too big is answered before emission.
     *
     * @param e the expression
     */
    public static boolean fits(Ex e) {
        long bytes = 1; // lreturn
        java.util.ArrayDeque<Ex> pending = new java.util.ArrayDeque<>();
        pending.push(e);
        while (!pending.isEmpty() && bytes <= MAX_CODE_BYTES) {
            switch (pending.pop()) {
                case Ex.Var v -> bytes += 5; // aload_n, iconst/bipush/sipush/ldc index, laload
                case Ex.Lit l -> bytes += 3; // lconst_n or ldc2_w
                case Ex.Bin(EvalNode.Op op, Ex a, Ex b) -> {
                    bytes += 3; // invokestatic
                    pending.push(a);
                    pending.push(b);
                }
            }
        }
        return bytes <= MAX_CODE_BYTES;
    }

    /**
     * {@return an evaluator for {@code e}} Call it only where {@link #fits} holds: then any
     * failure here is a bug in the emitter.
     *
     * @param e the expression
     * @throws ReflectiveOperationException if the emitted class cannot be defined or constructed
     */
    public static EvalNode compile(Ex e) throws ReflectiveOperationException {
        byte[] bytes = ClassFile.of().build(ClassDesc.of(BytecodeEval.class.getPackageName() + ".Generated"), cb -> {
            cb.withSuperclass(CD_EVAL_NODE);
            cb.withFlags(ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL);
            cb.withMethodBody("<init>", MethodTypeDesc.of(CD_void), ClassFile.ACC_PUBLIC,
                    code -> code.aload(0).invokespecial(CD_EVAL_NODE, "<init>", MethodTypeDesc.of(CD_void)).return_());
            cb.withMethodBody("eval", MethodTypeDesc.of(CD_long, CD_LONG_ARRAY, CD_LONG_ARRAY, CD_LONG_ARRAY),
                    ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL, code -> {
                        emit(code, e);
                        code.lreturn();
                    });
        });
        MethodHandles.Lookup lookup = MethodHandles.lookup().defineHiddenClass(bytes, true);
        try {
            return (EvalNode) lookup.findConstructor(lookup.lookupClass(), MethodType.methodType(void.class)).invoke();
        } catch (ReflectiveOperationException | RuntimeException | Error e2) {
            throw e2;
        } catch (Throwable t) {
            throw new ReflectiveOperationException(t);
        }
    }

    private static void emit(CodeBuilder code, Ex e) {
        switch (e) {
            case Ex.Var(int kind, int index) -> {
                code.aload(1 + kind);
                code.loadConstant(index);
                code.laload();
            }
            case Ex.Lit(long v) -> code.loadConstant(v);
            case Ex.Bin(EvalNode.Op op, Ex a, Ex b) -> {
                emit(code, a);
                emit(code, b);
                boolean positiveConst = b instanceof Ex.Lit(long c) && c > 0;
                switch (op) {
                    case ADD -> code.invokestatic(CD_MATH, "addExact", JJ_J);
                    case MUL -> code.invokestatic(CD_MATH, "multiplyExact", JJ_J);
                    case FLOOR_DIV -> code.invokestatic(positiveConst ? CD_MATH : CD_SELF, "floorDiv", JJ_J);
                    case MOD -> code.invokestatic(positiveConst ? CD_MATH : CD_SELF, positiveConst ? "floorMod" : "mod",
                            JJ_J);
                    case CEIL_DIV -> code.invokestatic(CD_SELF, "ceilDiv", JJ_J);
                    case MIN -> code.invokestatic(CD_MATH, "min", JJ_J);
                    case MAX -> code.invokestatic(CD_MATH, "max", JJ_J);
                }
            }
        }
    }

    /** {@return floor(a / b)} @param a dividend @param b divisor, checked for zero */
    public static long floorDiv(long a, long b) {
        return Math.floorDiv(a, EvalNode.divisor(b));
    }

    /** {@return a mod b, as {@link EvalNode#mod}} @param a dividend @param b modulus, checked for zero */
    public static long mod(long a, long b) {
        return EvalNode.mod(a, b);
    }

    /** {@return ceil(a / b)} @param a dividend @param b divisor, checked for zero */
    public static long ceilDiv(long a, long b) {
        return -Math.floorDiv(Math.negateExact(a), EvalNode.divisor(b));
    }
}
