package dev.tensorbuf.net;

/**
 * A fetch that did not complete: the message names the server, the tensor and box, how far it
 * got and why (the Flight status and the server's description). The destination's contents are
 * then unspecified: part of it may have been written, and none of it is to be taken as the tensor.
 * {@snippet :
 * // tensorbuf fetch grpc+tcp://127.0.0.1:8815 x.npy -o x.npy, with the server killed mid-stream:
 * // TensorFetchException: "fetching x.npy from grpc+tcp://127.0.0.1:8815 failed after 1024 of 4096 rows: UNAVAILABLE: ..."
 * }
 */
public final class TensorFetchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message names the server, the tensor and the reason */
    public TensorFetchException(String message, Throwable cause) {
        super(message, cause);
    }
}
