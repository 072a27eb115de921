package dev.tensorbuf.cli.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Every relative link and picture of README.md and docs/*.md names a file of the checkout. */
class DocsLinksTest {
    /** {@code [text](target)} and {@code ![alt](target)}; the target ends at the first ')' or '#'. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]+)(#[^)]*)?\\)");

    @Test
    void everyRelativeLinkResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path md : SnippetSourcesTest.markdownFiles()) {
            List<String> lines = Files.readAllLines(md);
            boolean inCode = false;
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).startsWith("```")) {
                    inCode = !inCode;
                }
                if (inCode) {
                    continue;
                }
                Matcher m = LINK.matcher(lines.get(i));
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("^[a-z]+:.*")) {
                        continue;  // http:, https:, mailto:
                    }
                    links++;
                    if (!Files.exists(md.getParent().resolve(target))) {
                        broken.add(md + ":" + (i + 1) + ": " + target);
                    }
                }
            }
        }
        assertEquals(List.of(), broken, "links to files that do not exist (of " + links + " links)");
    }
}
