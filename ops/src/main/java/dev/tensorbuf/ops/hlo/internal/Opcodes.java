package dev.tensorbuf.ops.hlo.internal;

import dev.tensorbuf.views.internal.Suggestions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * XLA's HLO opcodes and the attributes its parser takes on each (jaxlib 0.10.2's: the list its
 * "unexpected attribute" error gives for every opcode, and which of them it says are "expected
 * but not seen" when one is dropped from the committed programs' instructions, 2026-12-07):
 * misspelt opcodes are refused with a position, and so are attributes an opcode does not take or
 * lacks, as XLA refuses them. Unchecked, a misspelt optional attribute ({@code tpye=TOTALORDER} on
 * a compare) would be ignored and the program run as another. The async wrappers take their
 * wrapped op's attributes and are not checked here.
 */
final class Opcodes {
    private Opcodes() {
    }

    /** Every opcode takes these. */
    private static final List<String> COMMON = List.of("backend_config", "control-predecessors", "frontend_attributes",
            "metadata", "origin", "parameter_replication", "sharding", "statistics");

    /**
     * An opcode a line, then the attributes it takes beyond {@link #COMMON}; those marked {@code !}
     * it must have (XLA's parser refuses it without them). A broadcast of a scalar may leave out
     * its dimensions, and a conditional names its branches by its selector's type
     * ({@link #required}).
     */
    private static final String TABLE = """
            abs
            acos result_accuracy
            acosh result_accuracy
            add
            add-dependency
            after-all
            all-gather channel_id constrain_layout dimensions! replica_groups use_global_device_ids
            all-gather-done
            all-gather-start channel_id constrain_layout dimensions replica_groups use_global_device_ids
            all-reduce channel_id constrain_layout mode replica_groups to_apply use_global_device_ids
            all-reduce-done
            all-reduce-start channel_id constrain_layout mode replica_groups to_apply use_global_device_ids
            all-to-all channel_id constrain_layout dimensions replica_groups
            and
            asin result_accuracy
            asinh result_accuracy
            atan2
            atanh result_accuracy
            batch-norm-grad epsilon feature_index
            batch-norm-inference epsilon feature_index
            batch-norm-training epsilon feature_index
            bitcast
            bitcast-convert
            broadcast dimensions
            call is_composite to_apply!
            cbrt result_accuracy
            ceil
            cholesky lower
            clamp
            collective-broadcast channel_id replica_groups
            collective-permute channel_id slice_sizes source_target_pairs!
            collective-permute-done
            collective-permute-start channel_id slice_sizes source_target_pairs
            compare direction! type
            complex
            concatenate dimensions!
            conditional branch_computations false_computation true_computation
            constant
            convert
            convolution batch_group_count convolution_kind dim_labels feature_group_count operand_precision
                sparsity_config window
            copy
            copy-done
            copy-start cross_program_prefetch_index
            cosh result_accuracy
            cosine result_accuracy
            count-leading-zeros
            custom-call api_version batch_group_count called_computations custom_call_has_side_effect
                custom_call_target! dim_labels feature_group_count literal operand_layout_constraints operand_precision
                output_to_operand_aliasing padding_type schedule to_apply window
            divide
            domain domain
            dot algorithm lhs_batch_dims lhs_contracting_dims operand_precision rhs_batch_dims rhs_contracting_dims
            dynamic-reshape
            dynamic-slice dynamic_slice_sizes!
            dynamic-update-slice
            erf result_accuracy
            exponential result_accuracy
            exponential-minus-one result_accuracy
            fft fft_length fft_type
            floor
            fusion calls! kind! output_to_operand_aliasing
            gather collapsed_slice_dims! index_vector_dim! indices_are_sorted offset_dims! operand_batching_dims
                slice_sizes! start_index_map! start_indices_batching_dims
            get-dimension-size dimensions
            get-tuple-element index!
            imag
            infeed infeed_config
            iota iota_dimension!
            is-finite
            log result_accuracy
            log-plus-one result_accuracy
            logistic result_accuracy
            map dimensions to_apply
            maximum
            minimum
            multiply
            negate
            not
            opt-barrier
            or
            outfeed outfeed_config outfeed_shape
            pad padding!
            parameter
            partition-id
            popcnt
            power
            ragged-all-to-all channel_id dimensions replica_groups
            ragged-dot lhs_batch_dims lhs_contracting_dims lhs_ragged_dims operand_precision rhs_batch_dims
                rhs_contracting_dims rhs_group_dims
            real
            recv channel_id is_host_transfer
            recv-done channel_id is_host_transfer
            reduce dimensions! to_apply!
            reduce-precision exponent_bits mantissa_bits
            reduce-scatter channel_id constrain_layout dimensions mode replica_groups to_apply use_global_device_ids
            reduce-window to_apply! window
            remainder
            replica-id
            reshape inferred_dimension
            reverse dimensions!
            rng distribution
            rng-bit-generator algorithm
            rng-get-and-update-state delta
            round-nearest-afz
            round-nearest-even
            rsqrt result_accuracy
            scaled-dot algorithm lhs_batch_dims lhs_contracting_dims operand_precision rhs_batch_dims rhs_contracting_dims
            scan dimensions is_associative is_reverse num_carries to_apply
            scatter index_vector_dim! indices_are_sorted input_batching_dims inserted_window_dims!
                scatter_dims_to_operand_dims! scatter_indices_batching_dims to_apply! unique_indices update_window_dims!
            select
            select-and-scatter scatter select window
            send channel_id is_host_transfer
            send-done channel_id is_host_transfer
            set-dimension-size dimensions
            shift-left
            shift-right-arithmetic
            shift-right-logical
            sign
            sine result_accuracy
            sinh result_accuracy
            slice slice!
            sort dimensions! is_stable to_apply!
            sqrt result_accuracy
            stochastic-convert
            subtract
            tan result_accuracy
            tanh result_accuracy
            topk k! largest
            transpose dimensions!
            triangular-solve left_side lower transpose_a unit_diagonal
            tuple
            while body! condition!
            xor
            """;

    /** Each opcode's attributes beyond {@link #COMMON}, and of those the ones it must have. */
    private static final Map<String, Set<String>> ATTRIBUTES = table(false);
    private static final Map<String, Set<String>> REQUIRED = table(true);

    private static final Set<String> ASYNC = Set.of("async-start", "async-update", "async-done");

    private static Map<String, Set<String>> table(boolean requiredOnly) {
        Map<String, Set<String>> table = new HashMap<>();
        // An indented line goes on with the opcode above it.
        for (String entry : TABLE.stripTrailing().split("\n(?! )")) {
            String[] words = entry.strip().split("\\s+");
            table.put(words[0], java.util.Arrays.stream(words, 1, words.length).filter(a -> !requiredOnly || a.endsWith("!"))
                    .map(a -> a.replace("!", "")).collect(java.util.stream.Collectors.toUnmodifiableSet()));
        }
        return Map.copyOf(table);
    }

    /** {@return the attributes {@code opcode} must have, sorted; empty where none or not checked} */
    static List<String> required(String opcode, boolean predSelector) {
        if (opcode.equals("conditional")) {
            return predSelector ? List.of("false_computation", "true_computation") : List.of("branch_computations");
        }
        return REQUIRED.getOrDefault(opcode, Set.of()).stream().sorted().toList();
    }

    static boolean isKnown(String opcode) {
        return ATTRIBUTES.containsKey(opcode) || ASYNC.contains(opcode);
    }

    /** {@return " (did you mean transpose?)" for a misspelt opcode near a known one, else ""} */
    static String didYouMean(String opcode) {
        return Suggestions.didYouMean(opcode, ATTRIBUTES.keySet(), "");
    }

    /**
     * {@return the attributes {@code opcode} takes, sorted, or null where they are not checked}
     * {@code predSelector}: a conditional on a pred takes true_computation and false_computation,
     * one on an index branch_computations.
     */
    static List<String> attributes(String opcode, boolean predSelector) {
        Set<String> extra = ATTRIBUTES.get(opcode);
        if (extra == null) {
            return null;
        }
        java.util.stream.Stream<String> own = extra.stream();
        if (opcode.equals("conditional")) {
            own = own.filter(a -> a.equals("branch_computations") != predSelector);
        }
        return java.util.stream.Stream.concat(COMMON.stream(), own).sorted().toList();
    }
}
