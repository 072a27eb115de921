package dev.tensorbuf.net.internal;

import dev.tensorbuf.interop.Npy;
import dev.tensorbuf.interop.SafetensorsFile;
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
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The tensor files under one directory, as a server may show them: only regular files under it,
 * reached by relative paths without {@code ..}, whose real path (symlinks followed) stays inside
 * it. Each file is mapped once, on first use, and stays mapped until {@link #close()}.
 */
public final class TensorDirectory implements AutoCloseable {
    /** Why a request is refused, so the server can answer with the matching Flight status. */
    public enum Refusal { INVALID, NOT_FOUND, FORBIDDEN }

    /** A refused request: its kind and a message naming the path and why. */
    public static final class RefusedException extends RuntimeException {
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

    /** A tensor the directory holds: its path, name in the file ("" for .npy), type and dims. */
    public record Entry(String path, String tensor, DType dtype, List<Long> dims) {
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
        for (String part : relative.split("[/\\\\]")) {
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
        if (!name.endsWith(".npy") && !name.endsWith(".safetensors")) {
            throw new RefusedException(Refusal.INVALID, "path " + shown + " is not a .npy or .safetensors file");
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

    /**
     * {@return a read-only view of the tensor over the mapped file; valid until {@link #close()}}
     *
     * @param tensor the name in a safetensors file; empty (or the only name) for .npy
     * @throws RefusedException as {@link #resolve}, or NOT_FOUND for a missing tensor name, or
     *     INVALID when the file is not a readable tensor file
     */
    public TensorView open(String relative, String tensor) {
        Path file = resolve(relative);
        AutoCloseable opened = opened(file, relative);
        if (opened instanceof Npy.Tensor npy) {
            if (!tensor.isEmpty()) {
                throw new RefusedException(Refusal.INVALID, "'" + relative + "' is a .npy file, which holds one unnamed"
                        + " tensor; leave \"tensor\" out");
            }
            return npy.view();
        }
        SafetensorsFile st = (SafetensorsFile) opened;
        if (tensor.isEmpty()) {
            if (st.names().size() == 1) {
                tensor = st.names().getFirst();
            } else {
                throw new RefusedException(Refusal.INVALID, "'" + relative + "' holds " + st.names().size()
                        + " tensors; name one in \"tensor\"" + (st.names().size() <= 20 ? ": " + st.names() : ""));
            }
        }
        if (!st.names().contains(tensor)) {
            throw new RefusedException(Refusal.NOT_FOUND, "'" + relative + "' has no tensor '" + abbreviate(tensor) + "'");
        }
        SafetensorsFile.Tensor t = st.tensor(tensor);
        long[] dims = t.shape().stream().mapToLong(Long::longValue).toArray();
        ArrayShape shape = ArrayShape.of(t.dtype(), dims).withLayout(XlaLayout.packedDescending(t.dtype(), dims.length));
        return TensorView.of(t.data().asReadOnly(), shape);
    }

    private AutoCloseable opened(Path file, String relative) {
        if (closed) {
            throw new IllegalStateException("the tensor directory " + root + " is closed");
        }
        try {
            return open.computeIfAbsent(file, f -> {
                try {
                    return f.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".npy") ? Npy.map(f) : SafetensorsFile.open(f);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        } catch (java.io.UncheckedIOException | IllegalArgumentException e) {
            String why = e instanceof java.io.UncheckedIOException u ? u.getCause().getMessage() : e.getMessage();
            throw new RefusedException(Refusal.INVALID, "'" + relative + "' is not a readable tensor file: " + why);
        }
    }

    /** {@return every tensor in readable files under the directory, in path order; unreadable files are skipped} */
    public List<Entry> list() throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root, MAX_DEPTH)) {
            files = walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
                    .filter(p -> {
                        String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
                        return n.endsWith(".npy") || n.endsWith(".safetensors");
                    })
                    .limit(MAX_FILES).sorted().toList();
        }
        List<Entry> out = new ArrayList<>();
        for (Path p : files) {
            String relative = root.relativize(p).toString().replace('\\', '/');
            try {
                AutoCloseable opened = opened(p.toRealPath(), relative);
                if (opened instanceof Npy.Tensor npy) {
                    out.add(new Entry(relative, "", npy.dtype(), npy.shape()));
                } else {
                    for (SafetensorsFile.Tensor t : ((SafetensorsFile) opened).tensors()) {
                        out.add(new Entry(relative, t.name(), t.dtype(), t.shape()));
                    }
                }
            } catch (RefusedException | IOException e) {
                // A file that does not read as tensors is not offered; asking for it names why.
            }
        }
        return out;
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
