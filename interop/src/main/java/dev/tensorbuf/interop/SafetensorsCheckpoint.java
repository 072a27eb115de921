package dev.tensorbuf.interop;

import dev.tensorbuf.interop.internal.Errors;
import dev.tensorbuf.interop.internal.SafetensorsIndex;
import dev.tensorbuf.interop.internal.Sizes;
import dev.tensorbuf.views.ArrayShape;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The tensors of a checkpoint as one set, whether one safetensors file or a Hugging Face sharded
 * checkpoint: a {@code model.safetensors.index.json} whose {@code weight_map} names, for each
 * tensor, the shard file holding it. Each shard is an open {@link SafetensorsFile}; closing the
 * checkpoint closes them all.
 *
 * <p><b>Rules enforced on open</b>, each an {@link IllegalArgumentException} naming the index and
 * the shard or tensor, before any tensor is handed out: the index is at most
 * {@value SafetensorsIndex#MAX_INDEX_BYTES} bytes of UTF-8 JSON, an object with a
 * {@code weight_map} object of strings (and {@code metadata}, if any, an object); every shard
 * name is relative, without a {@code ..} part, and ends in {@code .safetensors} (links are
 * followed: Hugging Face's cache links shards to blobs elsewhere); every shard exists and is a
 * valid safetensors file; no tensor is in two shards; each shard holds exactly the tensors the
 * index maps to it.
 *
 * <p><b>Writing</b> ({@link #write}) splits as {@code huggingface_hub}'s
 * {@code split_torch_state_dict_into_shards} does ({@link Split}), writes each shard with
 * {@link SafetensorsFile#write}, and, when there is more than one, the index as
 * {@code save_torch_state_dict} writes it.
 * {@snippet :
 * Map<String, DenseTensor> state = new LinkedHashMap<>();
 * state.put("embed", embed);     // f32[1000, 64]: 256000 bytes
 * state.put("proj", proj);       // f32[64, 64]:    16384 bytes
 * state.put("head", head);       // f32[64, 1000]: 256000 bytes
 * Path index = SafetensorsCheckpoint.write(dir, state, Map.of("format", "pt"), 300_000);
 * // dir/model-00001-of-00002.safetensors (embed, proj), dir/model-00002-of-00002.safetensors (head),
 * // dir/model.safetensors.index.json: {"metadata": {"total_size": 528384, "format": "pt"}, "weight_map": {...}}
 * try (SafetensorsCheckpoint c = SafetensorsCheckpoint.open(index)) {
 *     c.files().size();                  // 2
 *     c.tensor("head").file();           // dir/model-00002-of-00002.safetensors
 *     TensorElements.of(c.tensor("head").view()).getFloat(0, 1);
 * }
 * }
 */
public final class SafetensorsCheckpoint implements AutoCloseable {
    /** The name of an index: {@code model.safetensors.index.json}, as Hugging Face names it. */
    public static final String INDEX_FILE = "model.safetensors.index.json";
    /** {@code huggingface_hub}'s default largest shard, {@code "5GB"}: 5 * 10^9 bytes. */
    public static final long DEFAULT_MAX_SHARD_BYTES = 5_000_000_000L;

    /** The files {@link #write} writes, and replaces: those of an earlier save into the same folder. */
    private static final Pattern SAVED = Pattern.compile("model(-\\d{5}-of-\\d{5})?\\.safetensors(\\.index\\.json)?");

    private final Path file;
    private final List<SafetensorsFile> files;
    private final Map<String, SafetensorsTensor> tensors;
    private final Map<String, Object> indexMetadata;

    private SafetensorsCheckpoint(Path file, List<SafetensorsFile> files, Map<String, SafetensorsTensor> tensors,
            Map<String, Object> indexMetadata) {
        this.file = file;
        this.files = List.copyOf(files);
        this.tensors = Collections.unmodifiableMap(tensors);
        this.indexMetadata = indexMetadata;
    }

    /**
     * {@return whether the file is named as an index ({@code *.safetensors.index.json}, as
     * {@value #INDEX_FILE} or diffusers' {@code diffusion_pytorch_model.safetensors.index.json})
     * rather than a safetensors file}
     */
    public static boolean isIndex(Path file) {
        Path name = file.getFileName();
        return name != null && name.toString().toLowerCase(Locale.ROOT).endsWith(".safetensors.index.json");
    }

    /**
     * {@return the checkpoint of an index ({@link #isIndex}), its shards opened, or of one safetensors file}
     *
     * @throws IllegalArgumentException naming the index, the shard or tensor, and the rule broken
     * @throws IOException if a file cannot be read or mapped
     */
    public static SafetensorsCheckpoint open(Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        if (!isIndex(file)) {
            SafetensorsFile only = SafetensorsFile.open(file);
            Map<String, SafetensorsTensor> tensors = new LinkedHashMap<>();
            only.tensors().forEach(t -> tensors.put(t.name(), t));
            return new SafetensorsCheckpoint(file, List.of(only), tensors, Map.of());
        }
        long size = Files.size(file);
        if (size > SafetensorsIndex.MAX_INDEX_BYTES) {
            throw new IllegalArgumentException(file + ": an index of " + size + " bytes, more than the "
                    + SafetensorsIndex.MAX_INDEX_BYTES + " a checkpoint index may have (huggingface_hub's limit)");
        }
        SafetensorsIndex.Parsed index = SafetensorsIndex.read(ByteBuffer.wrap(Files.readAllBytes(file)), file.toString());
        if (index.weightMap().isEmpty()) {
            throw new IllegalArgumentException(file + ": its \"weight_map\" is empty; a checkpoint index maps at least one"
                    + " tensor to its shard");
        }
        Path folder = file.toAbsolutePath().getParent();
        Map<String, List<String>> byShard = new LinkedHashMap<>();
        index.weightMap().forEach((tensor, shard) -> byShard.computeIfAbsent(shard, s -> new ArrayList<>()).add(tensor));
        List<SafetensorsFile> opened = new ArrayList<>();
        try {
            for (Map.Entry<String, List<String>> e : byShard.entrySet()) {
                Path shard = folder.resolve(e.getKey());
                if (!Files.exists(shard)) {
                    throw new IllegalArgumentException(file + " maps " + some(e.getValue()) + " to " + e.getKey()
                            + ", which does not exist in " + folder);
                }
                opened.add(SafetensorsFile.open(shard));
            }
            return new SafetensorsCheckpoint(file, opened, matched(file, index.weightMap(), List.copyOf(byShard.keySet()), opened),
                    index.metadata());
        } catch (IOException | RuntimeException x) {
            opened.forEach(SafetensorsFile::close);
            throw x;
        }
    }

    /** {@return the tensors, shard by shard, after checking that each shard holds what the index says} */
    private static Map<String, SafetensorsTensor> matched(Path index, Map<String, String> weightMap, List<String> shardNames,
            List<SafetensorsFile> shards) {
        Map<String, SafetensorsFile> holder = new LinkedHashMap<>();
        for (SafetensorsFile shard : shards) {
            for (String name : shard.names()) {
                SafetensorsFile before = holder.putIfAbsent(name, shard);
                if (before != null) {
                    throw new IllegalArgumentException(index + ": tensor '" + name + "' is in two shards, "
                            + before.file().getFileName() + " and " + shard.file().getFileName() + "; the index maps it to "
                            + weightMap.getOrDefault(name, "neither"));
                }
            }
        }
        Map<String, SafetensorsTensor> tensors = new LinkedHashMap<>();
        for (int i = 0; i < shards.size(); i++) {
            SafetensorsFile shard = shards.get(i);
            for (SafetensorsTensor t : shard.tensors()) {
                String mapped = weightMap.get(t.name());
                if (mapped == null) {
                    throw new IllegalArgumentException(index + ": " + shard.file().getFileName() + " holds tensor '"
                            + t.name() + "', which the index does not list");
                }
                if (!mapped.equals(shardNames.get(i))) {
                    throw new IllegalArgumentException(index + ": tensor '" + t.name() + "' is in "
                            + shard.file().getFileName() + ", but the index maps it to " + mapped);
                }
                tensors.put(t.name(), t);
            }
        }
        for (Map.Entry<String, String> e : weightMap.entrySet()) {
            if (!tensors.containsKey(e.getKey())) {
                throw new IllegalArgumentException(index + " maps tensor '" + e.getKey() + "' to " + e.getValue()
                        + ", which does not hold it");
            }
        }
        return tensors;
    }

    private static String some(List<String> names) {
        return "tensor '" + names.getFirst() + "'" + (names.size() > 1 ? " (and " + (names.size() - 1) + " more)" : "");
    }

    /** {@return the file opened: the index, or the one safetensors file} */
    public Path file() {
        return file;
    }

    /** {@return whether this is a sharded checkpoint opened through its index} */
    public boolean isSharded() {
        return isIndex(file);
    }

    /** {@return the shards, in the order the index first names them (the one file when not sharded)} */
    public List<SafetensorsFile> files() {
        return files;
    }

    /** {@return the tensor names, shard by shard, each shard's in the order of its data} */
    public List<String> names() {
        return List.copyOf(tensors.keySet());
    }

    /** {@return every tensor, in the order of {@link #names()}} */
    public List<SafetensorsTensor> tensors() {
        return List.copyOf(tensors.values());
    }

    /**
     * {@return the tensor of this name, from whichever shard holds it}
     *
     * @throws IllegalArgumentException naming the missing name and (up to 10 of) the names there are
     * @throws IllegalStateException if the checkpoint is closed
     */
    public SafetensorsTensor tensor(String name) {
        SafetensorsTensor t = tensors.get(name);
        if (t == null) {
            throw Errors.noTensor(name, file, names());
        }
        if (!t.data().isAlive()) {
            throw new IllegalStateException(file + " is closed");
        }
        return t;
    }

    /**
     * {@return the {@code __metadata__} pairs every shard has, with the same value (Hugging Face
     * writes {@code format=pt} into each); the file's own for one file}
     */
    public Map<String, String> metadata() {
        Map<String, String> common = new LinkedHashMap<>(files.getFirst().metadata());
        for (SafetensorsFile f : files) {
            common.entrySet().removeIf(e -> !e.getValue().equals(f.metadata().get(e.getKey())));
        }
        return Collections.unmodifiableMap(common);
    }

    /**
     * {@return the index's {@code metadata} object, values as JSON gives them ({@code Long} for
     * {@code total_size}, {@code String} for others); empty for one file}
     */
    public Map<String, Object> indexMetadata() {
        return indexMetadata;
    }

    /** {@return the bytes of all tensors' data, what Hugging Face's {@code total_size} counts} */
    public long byteSize() {
        long sum = 0;
        for (SafetensorsTensor t : tensors.values()) {
            sum = Math.addExact(sum, t.byteSize());
        }
        return sum;
    }

    /** Closes every shard; closing twice does nothing. */
    @Override
    public void close() {
        RuntimeException first = null;
        for (SafetensorsFile f : files) {
            try {
                f.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        return file + ": " + tensors.size() + " tensors in " + files.size() + (files.size() == 1 ? " file" : " files");
    }

    /**
     * How {@code huggingface_hub} splits a state dict into shards
     * ({@code split_state_dict_into_shards_factory}): tensors in the state dict's order fill the
     * current shard until the next would take it past the limit, which starts a new shard; a
     * tensor larger than the limit gets a shard of its own, placed where it is met, and the shard
     * being filled continues after it. No reordering to fill shards better.
     * {@snippet :
     * // sizes 6, 6, 2, 6, 2, 2 (GB) with a 10 GB limit:
     * Split.of(sizes, 10_000_000_000L).shards();   // [[a], [b, c], [d, e, f]]
     * // with 5 GB each 6 GB tensor gets a shard where it is met, ahead of the shard being filled:
     * Split.of(sizes, 5_000_000_000L).shards();    // [[a], [b], [d], [c, e], [f]]
     * }
     *
     * @param shards the tensor names of each shard, in file order
     * @param totalSize the sum of the tensors' bytes ({@code total_size})
     */
    public record Split(List<List<String>> shards, long totalSize) {
        /** Copies the lists. */
        public Split {
            shards = shards.stream().map(List::copyOf).toList();
        }

        /**
         * {@return the split of tensors of these byte sizes, in the map's iteration order}
         *
         * @throws IllegalArgumentException if {@code maxShardBytes <= 0}, a size is negative, or the map is empty
         */
        public static Split of(Map<String, Long> byteSizes, long maxShardBytes) {
            if (maxShardBytes <= 0) {
                throw new IllegalArgumentException("the largest shard must be > 0 bytes, got " + maxShardBytes);
            }
            if (byteSizes.isEmpty()) {
                throw new IllegalArgumentException("a checkpoint needs at least one tensor");
            }
            List<List<String>> shards = new ArrayList<>();
            List<String> current = new ArrayList<>();
            long currentBytes = 0;
            long total = 0;
            for (Map.Entry<String, Long> e : byteSizes.entrySet()) {
                long bytes = e.getValue();
                if (bytes < 0) {
                    throw new IllegalArgumentException("tensor '" + e.getKey() + "' has " + bytes + " bytes");
                }
                total = Math.addExact(total, bytes);
                if (bytes > maxShardBytes) {
                    shards.add(List.of(e.getKey()));
                    continue;
                }
                if (currentBytes + bytes > maxShardBytes) {
                    shards.add(current);
                    current = new ArrayList<>();
                    currentBytes = 0;
                }
                current.add(e.getKey());
                currentBytes += bytes;
            }
            if (!current.isEmpty()) {
                shards.add(current);
            }
            return new Split(shards, total);
        }

        /** {@return the shard file names: {@code model.safetensors} for one, else {@code model-00001-of-00003.safetensors}...} */
        public List<String> fileNames() {
            int n = shards.size();
            if (n == 1) {
                return List.of("model.safetensors");
            }
            List<String> names = new ArrayList<>(n);
            for (int i = 1; i <= n; i++) {
                names.add(String.format(Locale.ROOT, "model-%05d-of-%05d.safetensors", i, n));
            }
            return names;
        }

        /** {@return each tensor's shard file, shard by shard: the index's {@code weight_map}} */
        public Map<String, String> weightMap() {
            Map<String, String> map = new LinkedHashMap<>();
            List<String> names = fileNames();
            for (int i = 0; i < shards.size(); i++) {
                for (String t : shards.get(i)) {
                    map.put(t, names.get(i));
                }
            }
            return map;
        }
    }

    /**
     * Writes tensors into {@code folder} as {@code save_torch_state_dict} does: split by
     * {@link Split} in the map's iteration order (pass a {@code LinkedHashMap} to choose it), each
     * shard a safetensors file with {@code metadata} as its {@code __metadata__}, and, for more than
     * one shard, {@value #INDEX_FILE} with {@code total_size} then {@code metadata} in its
     * {@code metadata}, the bytes of Python's {@code json.dump(index, f, indent=2)}. Every file is
     * replaced only once complete; then the files of an earlier save into the folder that this one
     * did not write ({@code model.safetensors}, {@code model-0000i-of-0000n.safetensors}, the index)
     * are deleted, as {@code save_torch_state_dict} deletes them, so that no loader picks up a stale
     * index or shard.
     *
     * @return the file to {@link #open}: the index, or {@code model.safetensors} for one shard
     * @throws IllegalArgumentException as {@link SafetensorsFile#write(Path, Map, Map)}, as
     *     {@link Split#of}, or if {@code metadata} has a {@code total_size} key
     * @throws IOException if a file cannot be written
     */
    public static Path write(Path folder, Map<String, DenseTensor> tensors, Map<String, String> metadata, long maxShardBytes)
            throws IOException {
        Objects.requireNonNull(tensors, "tensors");
        Map<String, ArrayShape> shapes = new LinkedHashMap<>();
        Map<String, DataWriter> data = new LinkedHashMap<>();
        tensors.forEach((name, t) -> {
            shapes.put(name, ArrayShape.of(t.dtype(), dev.tensorbuf.views.internal.Extents.toArray(t.dims())));
            data.put(name, channel -> writeAll(channel, t.bytes()));
        });
        return write(folder, shapes, metadata, data, maxShardBytes);
    }

    private static void writeAll(java.nio.channels.WritableByteChannel channel, java.lang.foreign.MemorySegment bytes)
            throws IOException {
        // A ByteBuffer holds at most 2 GiB.
        for (long done = 0; done < bytes.byteSize(); ) {
            long n = Math.min(1L << 30, bytes.byteSize() - done);
            ByteBuffer piece = bytes.asSlice(done, n).asByteBuffer();
            while (piece.hasRemaining()) {
                channel.write(piece);
            }
            done += n;
        }
    }

    /**
     * Writes tensors of these types and dims as {@link #write(Path, Map, Map, long)} does, each
     * tensor's data written by its {@link DataWriter}, so that no buffer of a whole tensor is needed.
     *
     * @throws IllegalArgumentException as {@link #write(Path, Map, Map, long)}, or if a tensor has no writer
     * @throws IOException if a file cannot be written, or as a writer throws
     */
    public static Path write(Path folder, Map<String, ArrayShape> tensors, Map<String, String> metadata,
            Map<String, DataWriter> data, long maxShardBytes) throws IOException {
        Objects.requireNonNull(folder, "folder");
        Objects.requireNonNull(metadata, "metadata");
        if (metadata.containsKey("total_size")) {
            throw new IllegalArgumentException("metadata key 'total_size' is the index's own (the tensors' bytes)");
        }
        Map<String, Long> sizes = new LinkedHashMap<>();
        tensors.forEach((name, shape) -> {
            Objects.requireNonNull(data.get(name), () -> "tensor '" + name + "' has no DataWriter");
            String what = DenseTensor.describe(shape.dtype(), shape.dims());
            try {
                sizes.put(name, Sizes.byteSize(shape.dtype(), Sizes.elementCount(shape.dims(), what), what));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("tensor '" + name + "': " + e.getMessage(), e);
            }
        });
        Split split = Split.of(sizes, maxShardBytes);
        List<String> names = split.fileNames();
        for (int i = 0; i < names.size(); i++) {
            Map<String, ArrayShape> shard = new LinkedHashMap<>();
            for (String t : split.shards().get(i)) {
                shard.put(t, tensors.get(t));
            }
            SafetensorsFile.write(folder.resolve(names.get(i)), shard, metadata, data);
        }
        Set<String> written = new HashSet<>(names);
        Path result = folder.resolve(names.getFirst());
        if (names.size() > 1) {
            Map<String, Object> indexMetadata = new LinkedHashMap<>();
            indexMetadata.put("total_size", split.totalSize());
            indexMetadata.putAll(metadata);
            byte[] index = SafetensorsIndex.write(indexMetadata, split.weightMap());
            result = folder.resolve(INDEX_FILE);
            FileReplacement.write(result, where -> Files.write(where, index));
            written.add(INDEX_FILE);
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
            for (Path p : entries) {
                String name = p.getFileName().toString();
                if (SAVED.matcher(name).matches() && !written.contains(name)) {
                    Files.deleteIfExists(p);
                }
            }
        }
        return result;
    }
}
