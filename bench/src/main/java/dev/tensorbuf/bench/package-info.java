/** Benchmarks: JMH classes and the cases {@code tensorbuf bench} runs in-process. */
package dev.tensorbuf.bench;
