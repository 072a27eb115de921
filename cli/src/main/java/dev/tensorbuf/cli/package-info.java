/**
 * The {@code tensorbuf} command line. {@link dev.tensorbuf.cli.Main} picks a
 * {@link dev.tensorbuf.cli.Command} by name, parses its {@link dev.tensorbuf.cli.Option}s into an
 * {@link dev.tensorbuf.cli.Invocation}, and turns every failure into one stderr line and an exit
 * code: 0 ok, 2 bad input ({@link dev.tensorbuf.cli.UsageException} among others), 1 internal
 * error. {@code Main.run} takes the streams as arguments, so a program or a test can run a
 * command line in-process, as the launcher's JVM does.
 * {@snippet :
 * ByteArrayOutputStream out = new ByteArrayOutputStream();
 * int code = Main.run(new String[] {"layout", "f32[3,5]{1,0:T(2,2)}", "--index", "2,4", "--json"},
 *         new BufferedReader(new StringReader("")), new PrintStream(out, true), System.err);
 * // code == 0; out ends with "indices":[{"index":[2,4],"linear":20}],"offsets":[]}
 * }
 *
 * <p>Rules for every command here: human text by default, one JSON object with {@code --json}
 * ({@code {"error", "exit_code"}} on failure, beside the stderr line); the query commands also
 * take {@code --batch}, one JSON request and one JSON result per line; every
 * {@code tensorbuf <command> --help} ends with a real example.
 *
 * <h2>Files</h2>
 * <dl>
 * <dt><code>Main.java</code></dt>
 * <dd>entry point: command table, help (<code>--help</code>, <code>-h</code>, <code>help
 *     [command]</code>, each listed in the overview), <code>--version</code>, "did you mean" for
 *     unknown commands (by edit distance, or from words people reach for: <code>draw</code> is
 *     <code>render</code>); a failure is one stderr line and, with <code>--json</code>,
 *     <code>&#123;"error", "exit_code"&#125;</code> on stdout (<code>TENSORBUF_DEBUG=1</code> adds
 *     an internal error's stack trace)</dd>
 * <dt><code>Failure.java</code></dt>
 * <dd>exceptions to exit code and one-line message, for <code>Main</code> and each
 *     <code>--batch</code> line: 2 bad input (<code>UsageException</code>,
 *     <code>IllegalArgumentException</code>, <code>IndexOutOfBoundsException</code>, file errors
 *     named by path, <code>OutOfMemoryError</code> and <code>AllocationLimitException</code> as
 *     "not enough memory", <code>StackOverflowError</code> as "input nested too deeply to
 *     process"); 1 anything else, with a hint; control characters escaped; echoed input cut to 200
 *     characters (around the position a parser names; arguments and request strings wherever
 *     quoted), whole messages to 1000</dd>
 * <dt><code>CliFiles.java</code></dt>
 * <dd>checks on the paths a command is given, before any work (an empty path, which would name the
 *     working directory; <code>-</code>, which only <code>indexing</code> reads as stdin; missing
 *     file or folder, a directory, not a regular file, an output folder that is a file, or whose
 *     parent is missing: only the last folder is made, as <code>mkdir</code> makes it); strict
 *     UTF-8 reading naming the first bad byte</dd>
 * <dt><code>DTypeNames.java</code></dt>
 * <dd>the one reading of element type names for every <code>--dtype</code> and batch
 *     <code>"dtype"</code>: XLA or DirectML names, any case</dd>
 * <dt><code>Command.java</code></dt>
 * <dd>one sub-command: name, summary, synopsis, description with a real example, options,
 *     <code>run</code></dd>
 * <dt><code>Option.java</code></dt>
 * <dd>an option <code>--name [VALUE]</code>, repeatable or not; shared <code>--json</code> and
 *     <code>--batch</code></dd>
 * <dt><code>Invocation.java</code></dt>
 * <dd>parses arguments against a command's options (<code>--a b</code>, <code>--a=b</code>,
 *     <code>--</code>), typo suggestions for options, typed accessors; a single-dash argument
 *     (<code>-q</code>, <code>-o.npy</code>; a lone <code>-</code> is a positional) is an unknown
 *     option, with the option its letter starts or the closest by edit distance, and
 *     <code>./-o.npy</code> for a file so named</dd>
 * <dt><code>Batch.java</code>, <code>BatchRequest.java</code></dt>
 * <dd>the <code>--batch</code> loop: one JSON request per stdin line, one JSON result (or
 *     <code>&#123;"error"&#125;</code>, whatever the request threw, a blank line included) per
 *     line; other options refused; requests read strictly (unknown keys and wrong types,
 *     <code>null</code> among them, named, with "leave the key out" only for keys that have a
 *     default; values quoted as written, through <code>RawJson</code>)</dd>
 * <dt><code>Errors.java</code></dt>
 * <dd>package-private: the argument messages several commands build (a problem with the usage line,
 *     an integer that does not parse, an option given twice, a shape that is not an array, a
 *     <code>--batch</code> request without a key it needs)</dd>
 * <dt><code>DemoCommand.java</code></dt>
 * <dd><code>tensorbuf demo</code>: the main job on built-in data, one line a step</dd>
 * <dt><code>LayoutCommand.java</code></dt>
 * <dd><code>tensorbuf layout SHAPE</code>: canonical text, physical dims, byte size, index
 *     &lt;-&gt; offset, <code>--json</code>, <code>--batch</code></dd>
 * <dt><code>IndexingCommand.java</code></dt>
 * <dd>`tensorbuf indexing FILE</dd>
 * <dt><code>SimplifyCommand.java</code>, <code>ComposeCommand.java</code></dt>
 * <dd><code>tensorbuf simplify MAP</code>, <code>tensorbuf compose CONSUMER PRODUCER</code></dd>
 * <dt><code>DemoSteps.java</code></dt>
 * <dd>the demo's tour steps (memory, layouts, maps, views), each self-checking, one line and its
 *     JSON facts</dd>
 * <dt><code>DemoPipeline.java</code></dt>
 * <dd>the demo's main job: a u8 NHWC batch staged to normalised f32 NCHW and to bf16
 *     <code>T(8,128)(2,1)</code> with throughput against <code>MemorySegment.copy</code> (each
 *     warmed until the best run stops improving, then 5 rounds in turns, the median of each side's
 *     best of 5; the copy's spread and a "noisy" mark as bench gives them), DLPack export,
 *     <code>.npy</code>, the layout picture</dd>
 * <dt><code>InspectCommand.java</code></dt>
 * <dd><code>tensorbuf inspect FILE</code>: tensors, dtypes, shapes, byte ranges of
 *     <code>.npy</code>, safetensors, GGUF and Arrow IPC files (the last from the schema and batch
 *     headers, <code>ArrowTensors.describe</code>) (a zip archive, <code>.npz</code> or
 *     <code>torch.save</code>, refused as one) (names and metadata escaped by
 *     <code>Failure.oneLine</code>); a void <code>.npy</code>'s hint names <code>inspect
 *     --from-dtype</code></dd>
 * <dt><code>ConvertCommand.java</code>, <code>Progress.java</code></dt>
 * <dd><code>tensorbuf convert</code> between npy, safetensors and raw in any XLA layout and dtype
 *     (6-bit types one element to a byte unless <code>--layout</code> says otherwise); a
 *     safetensors file into a safetensors file whole, whatever its number of tensors
 *     (floating-point tensors to <code>--dtype</code>, the others copied byte for byte; written
 *     through <code>FileReplacement</code>); the stderr progress bar (terminals only; 100% only
 *     once the work is <code>finish</code>ed, so a failed conversion shows where it stopped; copies
 *     above 64 MiB go in pieces along dim 0 for it, and a piece that meets a value the output type
 *     cannot hold is copied again whole, so the error names the index in the tensor, not in the
 *     piece)</dd>
 * <dt><code>StagedWrites.java</code>, <code>OrderedPieces.java</code></dt>
 * <dd>a view written to a file as row-major bytes in pieces of 2 MiB: copied by the engine into
 *     a ring of buffers still in the cache when written (one region, on huge pages where the
 *     launcher asks malloc for them); a scalar job's pieces copied on one thread a core
 *     (at most 4) and written in order by the calling thread, the file byte for byte what one
 *     thread writes, a failing piece failing the job in its turn</dd>
 * <dt><code>RunCommand.java</code></dt>
 * <dd><code>tensorbuf run MODULE.hlo --arg NAME=FILE --out FILE.npy|FILE.safetensors|FILE</code>; a
 *     tuple ROOT only to safetensors, one tensor per element (<code>output0</code>, ...); the
 *     report names the C order a .npy or safetensors file holds; arguments from <code>.npy</code>
 *     (a void, ml_dtypes, file takes its parameter's type), safetensors tensors
 *     (<code>FILE.safetensors:TENSOR</code>, else the one named like the parameter, else the only
 *     one) or raw files in the parameter's layout; a raw OUT gets the ROOT's memory in the ROOT's
 *     own layout; the ROOT's type is checked against the output format before anything is read</dd>
 * <dt><code>TensorFiles.java</code></dt>
 * <dd>what <code>convert</code> and <code>run</code> share about tensor files: the format by
 *     extension, which types each holds (checked up front, with the format to use instead:
 *     <code>.npy</code> refuses what <code>Npy.whyNotWritable</code> names, f8e5m2 and 6-bit types;
 *     6-bit safetensors tensors are not unpacked; an odd count of 4-bit elements is refused for
 *     safetensors, asked of <code>SafetensorsFile.whyNotWritable</code> as <code>.npy</code> types
 *     are of <code>Npy.whyNotWritable</code>), the shape a file holds once written
 *     (<code>asWritten</code>: a <code>.npy</code> holds sub-byte elements one to a byte), writing
 *     a dense tensor, opening one safetensors tensor as a view, mapping a <code>.npy</code> with
 *     <code>--from-dtype</code> (refused where it contradicts the file's own type, for
 *     <code>inspect</code> too), mapping and writing raw bytes; zip archives (<code>.npz</code>,
 *     <code>torch.save</code>) refused by their magic, for raw input with a declared layout only
 *     under an archive's name</dd>
 * <dt><code>RenderCommand.java</code></dt>
 * <dd><code>tensorbuf render SHAPE</code>: the layout picture as SVG (<code>--out</code> must end
 *     in <code>.svg</code>)</dd>
 * <dt><code>Counts.java</code></dt>
 * <dd>a count and its noun, singular for one ("1 byte")</dd>
 * <dt><code>BenchCommand.java</code></dt>
 * <dd><code>tensorbuf bench</code>: the copy cases in-process, ratios to
 *     <code>MemorySegment.copy</code>, marked "noisy" with the copy's spread where it is not to be
 *     trusted</dd>
 * <dt><code>StridesCommand.java</code></dt>
 * <dd><code>tensorbuf strides</code>: DirectML sizing and classification of sizes/strides (and
 *     <code>--offset</code>, shared with <code>render</code>), offsets, <code>--json</code>,
 *     <code>--batch</code></dd>
 * </dl>
 */
package dev.tensorbuf.cli;
