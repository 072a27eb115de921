package dev.tensorbuf.net.internal;

import dev.tensorbuf.interop.GgufFile;
import dev.tensorbuf.interop.GgufTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.net.ArrowTensors;
import dev.tensorbuf.ops.quant.BlockTensor;
import dev.tensorbuf.views.ArrayShape;
import dev.tensorbuf.views.DType;
import dev.tensorbuf.views.TensorView;
import dev.tensorbuf.views.XlaLayout;
import java.io.IOException;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The tensor files under one directory, as a server may show them: only regular files under it,
 * reached by relative paths without {@code ..}, whose real path (symlinks followed) stays inside
 * it. Each file is mapped once, on first use, and stays mapped until {@link #close()}. The files:
 * {@code .npy}, {@code .npz} (each array a tensor; a deflated one inflated on first use),
 * {@code .safetensors}, {@code .gguf} (block-quantized tensors offered as f32, their
 * dequantized values), sharded safetensors checkpoints ({@code *.safetensors.index.json}: the
 * tensors of all its files as one set, named by the index's path; the files it covers are not
 * listed again on their own, though a ticket may still name one), and Arrow IPC files and streams
 * ({@code .arrow}, {@code .arrows}, Feather V2 {@code .feather}: each
 * {@code arrow.fixed_shape_tensor} column a tensor, mapped; several batches joined in memory).
 */
public final class TensorDirectory implements AutoCloseable {
    /** Why a request is refused, so the server can answer with the matching Flight status. */
    public enum Refusal { INVALID, NOT_FOUND, FORBIDDEN }

    /** A refused request: its kind and a message naming the path and why. */
    public static final class RefusedException extends RuntimeException {
        @java.io.Serial
        private static final long serialVersionUID = 1L;

        private final Refusal kind;

        RefusedException(Refusal kind, String message) {
            super(message);
            this.kind = kind;
        }

        /** {@return the kind of refusal} */
        public Refusal kind() {
            return kind;
        }
    }

    /**
     * A tensor the directory holds: its path, name in the file ("" for .npy), the type it is served
     * as by default, its dims, and its type in the file when that differs (a GGUF block type such as
     * {@code Q4_0}; else empty).
     */
    public record Entry(String path, String tensor, DType dtype, List<Long> dims, String stored) {
        public Entry(String path, String tensor, DType dtype, List<Long> dims) {
            this(path, tensor, dtype, dims, "");
        }
    }

    /**
     * An opened tensor: a view of the mapped file, or (exactly one of the two) a GGUF
     * block-quantized tensor, served dequantized.
     *
     * @param view the elements, read-only; null for a block-quantized tensor
     * @param blocks the blocks; null for a plain tensor
     * @param stored the file's block type name (e.g. {@code Q4_0}), empty for a plain tensor
     */
    public record Source(TensorView view, BlockTensor blocks, String stored) {
        /** The type a block-quantized tensor is served as when the ticket asks for none. */
        public static final DType DEQUANTIZED = DType.F32;

        /** {@return the type it is served as by default: the stored one, f32 for blocks} */
        public DType dtype() {
            return view != null ? view.dtype() : DEQUANTIZED;
        }

        /** {@return the logical dims} */
        public List<Long> dims() {
            return view != null ? view.dims() : blocks.dims();
        }
    }

    private static final int MAX_DEPTH = 16;
    private static final int MAX_FILES = 100_000;

    private final Path root;
    private final Map<Path, AutoCloseable> open = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** @throws IOException if {@code dir} is not a directory */
    public TensorDirectory(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new NoSuchFileException(dir.toString(), null, "not a directory");
        }
        this.root = dir.toRealPath();
    }

    /** {@return the directory's real path} */
    public Path root() {
        return root;
    }

    /**
     * {@return the real path of {@code relative}, a tensor file under the directory}
     *
     * @throws RefusedException INVALID for an empty, absolute or malformed path or another
     *     extension, FORBIDDEN for {@code ..} or a symlink leading out, NOT_FOUND when absent
     */
    public Path resolve(String relative) {
        String shown = "'" + abbreviate(relative) + "'";
        if (relative.isEmpty() || relative.indexOf('\0') >= 0) {
            throw new RefusedException(Refusal.INVALID, "path " + shown + " is empty or holds a NUL");
        }
        if (relative.startsWith("/") || relative.startsWith("\\") || relative.matches("^[A-Za-z]:.*")) {
            throw new RefusedException(Refusal.FORBIDDEN, "path " + shown + " is absolute; name a file relative to the"
                    + " served directory");
        }
        if (relative.endsWith("/") || relative.endsWith("\\")) {
            // A path's trailing separator would be dropped by normalising it, serving the file a
            // directory's name was given for.
            throw new RefusedException(Refusal.INVALID, "path " + shown + " ends with a separator; name a file");
        }
        String[] parts = relative.split("[/\\\\]");
        if (parts[parts.length - 1].equals(".")) {
            // Normalising drops a last '.' as it drops a trailing separator: 'x.npy/.' would serve x.npy.
            throw new RefusedException(Refusal.INVALID, "path " + shown + " ends with '.', a directory; name a file");
        }
        for (String part : parts) {
            if (part.equals("..")) {
                throw new RefusedException(Refusal.FORBIDDEN, "path " + shown + " climbs out of the served directory with '..'");
            }
        }
        Path candidate;
        try {
            candidate = root.resolve(relative).normalize();
        } catch (InvalidPathException e) {
            throw new RefusedException(Refusal.INVALID, "path " + shown + " is not a valid path: " + e.getReason());
        }
        String name = candidate.getFileName() == null ? "" : candidate.getFileName().toString().toLowerCase(Locale.ROOT);
        if (!served(name)) {
            throw new RefusedException(Refusal.INVALID, "path " + shown + " is not a .npy, .npz, .safetensors, .gguf,"
                    + " .safetensors.index.json, .arrow, .arrows or .feather file");
        }
        Path real;
        try {
            real = candidate.toRealPath();
        } catch (IOException e) {
            throw new RefusedException(Refusal.NOT_FOUND, "no file " + shown + " in the served directory");
        }
        if (!real.startsWith(root)) {
            throw new RefusedException(Refusal.FORBIDDEN, "path " + shown + " is a symlink leading out of the served directory");
        }
        if (!Files.isRegularFile(real)) {
            throw new RefusedException(Refusal.NOT_FOUND, "path " + shown + " is not a regular file");
        }
        return real;
    }

    private static boolean served(String lowerName) {
        return lowerName.endsWith(".npy") || lowerName.endsWith(".npz") || lowerName.endsWith(".safetensors") || lowerName.endsWith(".gguf")
                || lowerName.endsWith(".safetensors.index.json") || lowerName.endsWith(".arrow") || lowerName.endsWith(".arrows")
                || lowerName.endsWith(".feather");
    }

    /**
     * {@return a read-only view of the tensor over the mapped file; valid until {@link #close()}}
     *
     * @param tensor the name in a safetensors file; empty (or the only name) for .npy
     * @throws RefusedException as {@link #resolve}, or NOT_FOUND for a missing tensor name, or
     *     INVALID when the file is not a readable tensor file or the tensor is block-quantized
     */
    public TensorView open(String relative, String tensor) {
        Source s = source(relative, tensor);
        if (s.view() == null) {
            throw new RefusedException(Refusal.INVALID, "'" + relative + "':" + tensor + " is " + s.stored()
                    + ", block-quantized; it is served dequantized");
        }
        return s.view();
    }

    /**
     * {@return the tensor: a read-only view over the mapped file, or a GGUF tensor's blocks; valid until {@link #close()}}
     *
     * @param tensor the name in a safetensors, GGUF or index file; empty (or the only name) for .npy
     * @throws RefusedException as {@link #resolve}, or NOT_FOUND for a missing tensor name, or
     *     INVALID when the file is not a readable tensor file
     */
    public Source source(String relative, String tensor) {
        Path file = resolve(relative);
        AutoCloseable opened = opened(file, relative);
        if (opened instanceof Npy.Tensor npy) {
            if (!tensor.isEmpty()) {
                throw new RefusedException(Refusal.INVALID, "'" + relative + "' is a .npy file, which holds one unnamed"
                        + " tensor; leave \"tensor\" out");
            }
            return new Source(npy.view(), null, "");
        }
        List<String> names = switch (opened) {
            case SafetensorsFile st -> st.names();
            case SafetensorsFile.Checkpoint c -> c.names();
            case GgufFile g -> g.names();
            case ArrowTensors.Tensors a -> a.names();
            case OpenArchive z -> z.archive().names();
            default -> throw new AssertionError(opened);
        };
        if (tensor.isEmpty()) {
            if (names.size() == 1) {
                tensor = names.getFirst();
            } else {
                throw new RefusedException(Refusal.INVALID, "'" + relative + "' holds " + names.size()
                        + " tensors; name one in \"tensor\"" + (names.size() <= 20 ? ": " + names : ""));
            }
        }
        if (!names.contains(tensor)) {
            throw new RefusedException(Refusal.NOT_FOUND, "'" + relative + "' has no tensor '" + abbreviate(tensor) + "'");
        }
        if (opened instanceof ArrowTensors.Tensors a) {
            return new Source(a.view(tensor), null, "");
        }
        if (opened instanceof OpenArchive z) {
            try {
                return new Source(z.view(tensor), null, "");
            } catch (IllegalArgumentException e) {
                throw new RefusedException(Refusal.INVALID, "'" + relative + "':" + abbreviate(tensor) + " is not readable: "
                        + e.getMessage());
            }
        }
        if (opened instanceof GgufFile g) {
            GgufTensor t = g.tensor(tensor);
            if (t.type().dtype().isPresent()) {
                return new Source(t.view(), null, "");
            }
            try {
                return new Source(null, t.blocks(), t.type().toString());
            } catch (IllegalArgumentException e) {
                throw new RefusedException(Refusal.INVALID, "'" + relative + "':" + tensor + ": " + e.getMessage());
            }
        }
        SafetensorsFile.Tensor t = opened instanceof SafetensorsFile st ? st.tensor(tensor)
                : ((SafetensorsFile.Checkpoint) opened).tensor(tensor);
        long[] dims = t.shape().stream().mapToLong(Long::longValue).toArray();
        ArrayShape shape = ArrayShape.of(t.dtype(), dims).withLayout(XlaLayout.packedDescending(t.dtype(), dims.length));
        return new Source(TensorView.of(t.data().asReadOnly(), shape), null, "");
    }

    private AutoCloseable opened(Path file, String relative) {
        if (closed) {
            throw new IllegalStateException("the tensor directory " + root + " is closed");
        }
        try {
            return open.computeIfAbsent(file, f -> {
                try {
                    String n = f.getFileName().toString().toLowerCase(Locale.ROOT);
                    if (n.endsWith(".npy")) {
                        return Npy.map(f);
                    }
                    if (n.endsWith(".npz")) {
                        return new OpenArchive(Npy.Archive.open(f));
                    }
                    if (n.endsWith(".gguf")) {
                        return GgufFile.open(f);
                    }
                    if (n.endsWith(".arrow") || n.endsWith(".arrows") || n.endsWith(".feather")) {
                        return ArrowTensors.read(f);
                    }
                    if (n.endsWith(".safetensors.index.json")) {
                        return confined(SafetensorsFile.Checkpoint.open(f), relative);
                    }
                    return SafetensorsFile.open(f);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        } catch (RefusedException e) {
            throw e;
        } catch (java.io.UncheckedIOException | IllegalArgumentException e) {
            String why = e instanceof java.io.UncheckedIOException u ? u.getCause().getMessage() : e.getMessage();
            throw new RefusedException(Refusal.INVALID, "'" + relative + "' is not a readable tensor file: " + why);
        }
    }

    /** {@return the checkpoint, if every file it maps is under the directory once symlinks are followed} */
    private SafetensorsFile.Checkpoint confined(SafetensorsFile.Checkpoint c, String relative) throws IOException {
        for (SafetensorsFile f : c.files()) {
            if (!f.file().toRealPath().startsWith(root)) {
                c.close();
                throw new RefusedException(Refusal.FORBIDDEN, "'" + abbreviate(relative) + "' maps tensors to "
                        + f.file().getFileName() + ", a symlink leading out of the served directory");
            }
        }
        return c;
    }

    /** {@return every tensor in readable files under the directory, in path order; unreadable files are skipped} */
    public List<Entry> list() throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root, MAX_DEPTH)) {
            files = walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
                    .filter(p -> {
                        String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
                        return served(n);
                    })
                    .limit(MAX_FILES).sorted().toList();
        }
        Map<Path, List<Entry>> byFile = new java.util.LinkedHashMap<>();
        Set<Path> covered = new HashSet<>();
        for (Path p : files) {
            String relative = root.relativize(p).toString().replace('\\', '/');
            List<Entry> entries = new ArrayList<>();
            try {
                switch (opened(p.toRealPath(), relative)) {
                    case Npy.Tensor npy -> entries.add(new Entry(relative, "", npy.dtype(), npy.shape()));
                    case SafetensorsFile st -> st.tensors().forEach(t -> entries.add(new Entry(relative, t.name(), t.dtype(), t.shape())));
                    case SafetensorsFile.Checkpoint c -> {
                        c.tensors().forEach(t -> entries.add(new Entry(relative, t.name(), t.dtype(), t.shape())));
                        for (SafetensorsFile f : c.files()) {
                            covered.add(f.file().toRealPath());
                        }
                    }
                    case ArrowTensors.Tensors a -> a.names().forEach(name -> entries.add(
                            new Entry(relative, name, a.view(name).dtype(), a.view(name).dims())));
                    case OpenArchive z -> {
                        for (String name : z.archive().names()) {
                            try {
                                Npy.Header h = z.archive().header(name);
                                entries.add(new Entry(relative, name, h.dtype(), h.shape()));
                            } catch (IllegalArgumentException e) {
                                // an unreadable member is not offered; asking for it names why
                            }
                        }
                    }
                    case GgufFile g -> {
                        for (GgufTensor t : g.tensors()) {
                            boolean plain = t.type().dtype().isPresent();
                            entries.add(new Entry(relative, t.name(), plain ? t.type().dtype().get() : Source.DEQUANTIZED,
                                    t.dims(), plain ? "" : t.type().toString()));
                        }
                    }
                    default -> { }
                }
            } catch (RefusedException | IOException | IllegalStateException e) {
                // A file that does not read as tensors is not offered; asking for it names why.
                continue;
            }
            byFile.put(p.toRealPath(), entries);
        }
        List<Entry> out = new ArrayList<>();
        // The files of a checkpoint are offered as its index's tensors, once.
        byFile.forEach((file, entries) -> {
            if (!covered.contains(file)) {
                out.addAll(entries);
            }
        });
        return out;
    }

    /**
     * An {@code .npz} archive and the arrays of it opened so far (a deflated one is inflated once),
     * each kept until the directory closes, as the views of other files are.
     */
    private record OpenArchive(Npy.Archive archive, Map<String, Npy.Tensor> tensors) implements AutoCloseable {
        OpenArchive(Npy.Archive archive) {
            this(archive, new ConcurrentHashMap<>());
        }

        TensorView view(String name) {
            return tensors.computeIfAbsent(name, archive::tensor).view();
        }

        @Override
        public void close() {
            tensors.values().forEach(Npy.Tensor::close);
            archive.close();
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 120 ? s : s.substring(0, 117) + "...";
    }

    /** Unmaps every file. */
    @Override
    public void close() {
        closed = true;
        for (AutoCloseable c : open.values()) {
            try {
                c.close();
            } catch (Exception ignored) {
                // closing the others matters more
            }
        }
        open.clear();
    }
}
