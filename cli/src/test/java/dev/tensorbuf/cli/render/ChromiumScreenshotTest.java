package dev.tensorbuf.cli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Opens the pictures of seed 000's figures in headless Chromium and checks the screenshot shows
 * something: several fill colours and enough ink. Skips when Chromium is not installed (Debian
 * package {@code chromium}); {@code -Dtensorbuf.chromium=PATH} picks another binary.
 */
class ChromiumScreenshotTest {
    private static final Path CHROMIUM = Path.of(System.getProperty("tensorbuf.chromium", "/usr/bin/chromium"));

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"f32[3,5]{1,0:T(2,2)}", "bf16[4,8]{1,0:T(2,4)(2,1)}"})
    void screenshotOfFigureIsNotBlank(String shape) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM),
                "SKIPPED: no Chromium at " + CHROMIUM + " (apt-get install -y chromium, or -Dtensorbuf.chromium=PATH)");
        String svg = FigurePicturesTest.draw(shape);
        Path file = dir.resolve("picture.svg");
        Files.writeString(file, svg, StandardCharsets.UTF_8);
        Path png = dir.resolve("picture.png");
        int width = (int) Double.parseDouble(attribute(svg, "width"));
        int height = (int) Double.parseDouble(attribute(svg, "height"));
        Path profile = Files.createDirectory(dir.resolve("profile"));
        List<String> command = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--hide-scrollbars", "--user-data-dir=" + profile, "--screenshot=" + png,
                "--window-size=" + width + "," + height, file.toUri().toString()));
        long start = System.nanoTime();
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("chromium.log").toFile())
                .start();
        assertTrue(p.waitFor(90, TimeUnit.SECONDS), "chromium did not finish in 90 s");
        System.out.printf("ChromiumScreenshotTest %s: chromium took %d ms%n", shape, (System.nanoTime() - start) / 1_000_000);
        assertEquals(0, p.exitValue(), () -> "chromium failed: " + read(dir.resolve("chromium.log")));
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(width, image.getWidth());
        Set<Integer> colours = new HashSet<>();
        long ink = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y) & 0xFFFFFF;
                colours.add(rgb);
                if (rgb != 0xFFFFFF) {
                    ink++;
                }
            }
        }
        double fraction = (double) ink / ((long) image.getWidth() * image.getHeight());
        assertTrue(colours.size() >= 8, "only " + colours.size() + " distinct colours in the screenshot of " + shape);
        assertTrue(fraction > 0.05, "only " + fraction + " of the screenshot of " + shape + " is not white");
        for (String fill : List.of("#77AADD", "#EE8866")) {
            int rgb = Integer.parseInt(fill.substring(1), 16);
            assertTrue(colours.contains(rgb), "tile fill " + fill + " not on screen for " + shape);
        }
        cleanProfile(profile);
    }

    private static String attribute(String svg, String name) {
        int at = svg.indexOf(" " + name + "=\"", svg.indexOf("<svg"));
        int from = at + name.length() + 3;
        return svg.substring(from, svg.indexOf('"', from));
    }

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Chromium may leave files being written as it exits; @TempDir cleanup then needs them gone first. */
    private static void cleanProfile(Path profile) throws IOException {
        try (Stream<Path> files = Files.walk(profile)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            // leftovers of the browser profile are not the picture's problem
        }
    }
}
