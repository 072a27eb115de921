package dev.tensorbuf.net.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.auth2.CallHeaderAuthenticator;

/**
 * Flight's header authentication with one fixed bearer token: every call must carry
 * {@code authorization: Bearer TOKEN}, compared in constant time; any other call ends
 * {@code UNAUTHENTICATED} before the producer sees it.
 */
public final class BearerTokenCheck implements CallHeaderAuthenticator {
    private final byte[] expected;

    public BearerTokenCheck(String token) {
        if (token.isBlank()) {
            throw new IllegalArgumentException("the bearer token is empty");
        }
        this.expected = ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public AuthResult authenticate(CallHeaders headers) {
        String given = headers.get("authorization");
        if (given == null) {
            throw CallStatus.UNAUTHENTICATED.withDescription("this server needs a bearer token: send the header"
                    + " 'authorization: Bearer TOKEN'").toRuntimeException();
        }
        if (!MessageDigest.isEqual(expected, given.getBytes(StandardCharsets.UTF_8))) {
            throw CallStatus.UNAUTHENTICATED.withDescription("the bearer token is not this server's").toRuntimeException();
        }
        return () -> "bearer";
    }
}
