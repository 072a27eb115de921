package dev.tensorbuf.net.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tensorbuf.interop.DenseTensor;
import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
import dev.tensorbuf.net.ArrowTensors;
import dev.tensorbuf.net.TensorTicket;
import dev.tensorbuf.net.internal.TensorDirectory;
import dev.tensorbuf.net.internal.TensorProducer;
import dev.tensorbuf.testing.FuzzChecks;
import dev.tensorbuf.views.DType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Fuzzes what a server does with ticket bytes before it streams: every input is either a request
 * for a box inside a served tensor, within the byte limit, or a Flight error with a description
 * (never another exception, never a file outside the directory; Jazzer's path traversal
 * sanitizer watches the file system calls). Seeds and findings:
 * {@code src/test/resources/dev/tensorbuf/net/fuzz/TicketFuzzTestInputs/}.
 */
class TicketFuzzTest {
    private static final long LIMIT = 4096;
    private static final TensorProducer PRODUCER = producer();

    private static TensorProducer producer() {
        try {
            Path dir = Files.createTempDirectory("ticket-fuzz");
            dir.toFile().deleteOnExit();
            Arena arena = Arena.ofAuto();
            Npy.write(dir.resolve("x.npy"), new DenseTensor(DType.F32, List.of(8L, 3L, 4L), arena.allocate(8 * 3 * 4 * 4)));
            SafetensorsFile.write(dir.resolve("m.safetensors"), Map.of(
                    "w", new DenseTensor(DType.S32, List.of(6L, 5L), arena.allocate(6 * 5 * 4)),
                    "b", new DenseTensor(DType.BF16, List.of(2L), arena.allocate(4))));
            BufferAllocator allocator = ArrowTensors.allocator();
            TensorProducer producer = new TensorProducer(new TensorDirectory(dir), allocator, LIMIT, 1024);
            // Class loading and first mappings (Jackson, Arrow's types, both files) happen here, not in
            // the first timed input: on a loaded machine they alone took longer than the hang bound.
            for (String warm : List.of("{\"path\": \"x.npy\"}", "{\"path\": \"m.safetensors\", \"tensor\": \"w\"}",
                    "{\"path\": \"m.safetensors\", \"tensor\": \"b\"}", "{\"path\": \"../x.npy\"}", "{")) {
                try {
                    producer.check(warm.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                } catch (FlightRuntimeException expected) {
                    // the refusals are warmed up too
                }
            }
            return producer;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FuzzTest
    void ticketBytesAreServedOrRefusedCleanly(byte[] data) {
        long t0 = System.nanoTime();
        try {
            TensorProducer.Request r = PRODUCER.check(data);
            TensorTicket t = r.ticket();
            assertTrue(t.path().equals("x.npy") || t.path().equals("m.safetensors") || t.path().equals("./x.npy")
                    || t.path().equals("./m.safetensors") || t.path().endsWith(".npy") || t.path().endsWith(".safetensors"),
                    "served " + t.path());
            long bytes = r.box().elementCount() * r.box().dtype().byteWidth();
            assertTrue(bytes <= LIMIT, "a request for " + bytes + " bytes passed a limit of " + LIMIT);
            if (t.hasBox()) {
                for (int i = 0; i < t.start().size(); i++) {
                    assertEquals(t.limit().get(i) - t.start().get(i), r.box().dims().get(i));
                }
            }
        } catch (FlightRuntimeException e) {
            assertTrue(e.status().code() != FlightStatusCode.INTERNAL && e.status().code() != FlightStatusCode.UNKNOWN,
                    () -> "bad ticket answered " + e.status());
            assertTrue(e.status().description() != null && !e.status().description().isBlank(), "an error without a description");
        }
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertTrue(took.compareTo(FuzzChecks.HANG) < 0, "took " + took);
    }
}
