package dev.tensorbuf.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/** Zip archives made by the JDK, as np.savez (members stored) and np.savez_compressed (deflated) lay them out. */
public final class Zips {
    private Zips() {
    }

    /** A member: its name in the archive and its bytes. */
    public record Member(String name, byte[] bytes) {
        /** {@return a member holding the file's bytes} */
        public static Member of(String name, Path file) throws IOException {
            return new Member(name, Files.readAllBytes(file));
        }
    }

    /** Writes the members, in order, into a new zip {@code file}, stored or deflated; {@return the file} */
    public static Path write(Path file, boolean stored, Member... members) throws IOException {
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(file))) {
            for (Member m : members) {
                ZipEntry e = new ZipEntry(m.name());
                if (stored) {
                    CRC32 crc = new CRC32();
                    crc.update(m.bytes());
                    e.setMethod(ZipEntry.STORED);
                    e.setSize(m.bytes().length);
                    e.setCompressedSize(m.bytes().length);
                    e.setCrc(crc.getValue());
                }
                zip.putNextEntry(e);
                zip.write(m.bytes());
                zip.closeEntry();
            }
        }
        return file;
    }
}
