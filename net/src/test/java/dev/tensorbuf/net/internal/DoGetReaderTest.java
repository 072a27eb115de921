package dev.tensorbuf.net.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tensorbuf.net.FixedShapeTensorType;
import dev.tensorbuf.views.DType;
import io.grpc.KnownLength;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * {@link DoGetReader} on single FlightData messages as pyarrow.flight sends them
 * ({@code src/test/resources/flight/*.fd}, written by {@code make_fixtures.py} there with
 * pyarrow's IPC writer), and on those messages cut short or corrupted: each is read, or refused
 * with an {@link IllegalArgumentException} saying what is wrong, never another exception.
 */
class DoGetReaderTest {
    /** How gRPC hands a message to its parser: a stream that knows how many bytes it has. */
    private static final class Known extends ByteArrayInputStream implements KnownLength {
        Known(byte[] b) {
            super(b);
        }
    }

    /** What the sink was given: the schema, and each batch's rows and values (read whole). */
    private static final class Recorder implements DoGetReader.Sink {
        Schema schema;
        final List<Long> rows = new ArrayList<>();
        final List<float[]> values = new ArrayList<>();

        @Override
        public void schema(Schema s) {
            schema = s;
        }

        @Override
        public void batch(long n, DoGetReader.Body data) {
            MemorySegment into = MemorySegment.ofArray(new float[(int) (data.bytes() / 4)]);
            data.copyTo(into);
            rows.add(n);
            values.add(into.toArray(ValueLayout.JAVA_FLOAT));
        }
    }

    private static final List<Function<byte[], InputStream>> STREAMS = List.of(Known::new, ByteArrayInputStream::new);

    private static byte[] fixture(String name) throws IOException {
        try (InputStream in = DoGetReaderTest.class.getResourceAsStream("/flight/" + name + ".fd")) {
            return in.readAllBytes();
        }
    }

    private static Recorder read(byte[] message, Function<byte[], InputStream> stream) {
        Recorder r = new Recorder();
        DoGetReader.message(stream.apply(message), r);
        return r;
    }

    private static IllegalArgumentException refused(byte[] message, Function<byte[], InputStream> stream) {
        return assertThrows(IllegalArgumentException.class, () -> read(message, stream));
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** The header and body fields of pyarrow's batch message: tag 0x12, a 2-byte length, then the body's 3-byte prefix. */
    private static byte[][] headerAndBody(byte[] batch) {
        int headerLength = (batch[1] & 0x7f) | (batch[2] & 0x7f) << 7;
        int bodyAt = 3 + headerLength;
        return new byte[][] {Arrays.copyOfRange(batch, 0, bodyAt), Arrays.copyOfRange(batch, bodyAt, batch.length)};
    }

    @Test
    void pyarrowsSchemaMessageGivesTheTensorColumn() throws IOException {
        for (Function<byte[], InputStream> s : STREAMS) {
            Recorder r = read(fixture("schema"), s);
            assertEquals(1, r.schema.getFields().size());
            assertEquals("tensor", r.schema.getFields().getFirst().getName());
            FixedShapeTensorType t = FixedShapeTensorType.ofField(r.schema.getFields().getFirst()).orElseThrow();
            assertEquals(DType.F32, t.dtype());
            assertEquals(List.of(2L, 3L), t.logicalDims());
            assertTrue(r.rows.isEmpty());
        }
    }

    @Test
    void pyarrowsBatchMessageGivesItsRowsAndValues() throws IOException {
        float[] want = new float[24];
        for (int i = 0; i < 24; i++) {
            want[i] = i;
        }
        // As sent plain, and compressed with Zstandard and LZ4 (pyarrow's IpcWriteOptions(compression=...)).
        for (String fixture : List.of("batch", "compressed", "compressed_lz4")) {
            for (Function<byte[], InputStream> s : STREAMS) {
                Recorder r = read(fixture(fixture), s);
                assertEquals(List.of(4L), r.rows, fixture);
                assertArrayEquals(want, r.values.getFirst(), fixture);
            }
        }
    }

    @Test
    void aBatchIsReadInPiecesAndNotPastItsValues() throws IOException {
        List<Float> got = new ArrayList<>();
        DoGetReader.message(new Known(fixture("batch")), new DoGetReader.Sink() {
            @Override
            public void schema(Schema s) {
            }

            @Override
            public void batch(long n, DoGetReader.Body data) {
                float[] a = new float[10];
                float[] b = new float[14];
                data.copyTo(MemorySegment.ofArray(a));
                data.copyTo(MemorySegment.ofArray(b));
                for (float f : a) {
                    got.add(f);
                }
                for (float f : b) {
                    got.add(f);
                }
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> data.copyTo(MemorySegment.ofArray(new byte[1])));
                assertEquals("a batch's values hold 96 bytes, 97 asked for", e.getMessage());
            }
        });
        assertEquals(24, got.size());
        assertEquals(23f, got.getLast());
        assertEquals(9f, got.get(9));
    }

    @Test
    void everyCutOfAMessageIsRefusedAsTruncated() throws IOException {
        for (String name : List.of("schema", "batch")) {
            byte[] whole = fixture(name);
            int bodyAt = headerAndBody(whole)[0].length;
            for (Function<byte[], InputStream> s : STREAMS) {
                for (int cut = 1; cut < whole.length; cut++) {
                    byte[] part = Arrays.copyOf(whole, cut);
                    if (name.equals("batch") && cut == bodyAt) {
                        // The header whole, the body field missing: the header says how long the body is.
                        assertEquals("a record batch's header says its body has 96 bytes, the message holds 0",
                                refused(part, s).getMessage());
                        continue;
                    }
                    String m = refused(part, s).getMessage();
                    assertTrue(m.startsWith("a FlightData message is truncated"), name + " cut at " + cut + ": " + m);
                }
            }
            // gRPC's stream knows its length: a cut body is refused before the sink sees the batch.
            Recorder r = new Recorder();
            assertThrows(IllegalArgumentException.class,
                    () -> DoGetReader.message(new Known(Arrays.copyOf(whole, whole.length - 1)), r));
            assertTrue(r.rows.isEmpty());
        }
        assertEquals("a FlightData message is truncated: its field 2 says 168 bytes, 10 are left",
                refused(Arrays.copyOf(fixture("batch"), 13), Known::new).getMessage());
        assertEquals("a FlightData message is truncated: it ends inside the 96 bytes of values its header gives",
                refused(Arrays.copyOf(fixture("batch"), fixture("batch").length - 1), ByteArrayInputStream::new).getMessage());
    }

    @Test
    void aCorruptHeaderIsReadOrRefusedByName() throws IOException {
        int refusals = 0;
        for (String name : List.of("schema", "batch")) {
            byte[] whole = fixture(name);
            int headerEnd = headerAndBody(whole)[0].length;
            for (int at = 3; at < headerEnd; at++) {
                for (int value : new int[] {0x00, 0x7f, 0xff}) {
                    byte[] bad = whole.clone();
                    bad[at] = (byte) value;
                    try {
                        read(bad, Known::new);
                    } catch (IllegalArgumentException e) {
                        refusals++;
                        assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), name + " at " + at);
                    }
                }
            }
        }
        assertTrue(refusals > 100, "refusals: " + refusals);
    }

    @Test
    void whatIsNotOneTensorColumnIsRefusedByName() throws IOException {
        assertEquals("column 'tensor' has 1 null rows; a tensor has a value in every row",
                refused(fixture("nulls"), Known::new).getMessage());
        assertEquals("a record batch has 4 field nodes and 6 buffers, not the 2 and 3 of one fixed_shape_tensor column",
                refused(fixture("two_columns"), Known::new).getMessage());
        assertEquals("the stream has a dictionary batch; a tensor column has no dictionary",
                refused(fixture("dictionary"), Known::new).getMessage());
    }

    @Test
    void malformedProtobufIsRefusedByName() throws IOException {
        byte[][] parts = headerAndBody(fixture("batch"));
        assertEquals("a FlightData message has a body before its header",
                refused(concat(parts[1], parts[0]), Known::new).getMessage());
        Recorder r = new Recorder();
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> DoGetReader.message(new Known(concat(parts[0], parts[1], parts[1])), r));
        assertEquals("a FlightData message has two bodies", twice.getMessage());
        assertEquals("a FlightData message has field 3 of wire type 3, which protobuf does not have",
                refused(concat(fixture("batch"), new byte[] {0x1b}), Known::new).getMessage());
        byte[] longVarint = new byte[11];
        Arrays.fill(longVarint, (byte) 0x80);
        assertEquals("a FlightData message has a varint of more than 10 bytes",
                refused(longVarint, Known::new).getMessage());
        assertEquals("a FlightData message has a field tag of more than 32 bits",
                refused(new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x01}, Known::new)
                        .getMessage());
        // A header of 18 MiB, declared: refused before it is read, even where the stream's length is unknown.
        byte[] huge = concat(new byte[] {0x12, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x09}, new byte[64]);
        assertEquals("a FlightData message's IPC header has 18874368 bytes, more than the 16777216 a reader takes",
                refused(huge, ByteArrayInputStream::new).getMessage());
    }

    @Test
    void messagesWithoutAHeaderAreSkipped() {
        // app_metadata alone (field 3), as a server may send between batches.
        Recorder r = read(new byte[] {0x1a, 0x02, 0x01, 0x02}, Known::new);
        assertEquals(null, r.schema);
        assertTrue(r.rows.isEmpty());
    }
}
