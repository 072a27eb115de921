package dev.tensorbuf.cli;

/** Entry point of the {@code tensorbuf} command. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.out.println("tensorbuf");
    }
}
