package dev.gate.client;

/** The gate did not grant the call; the subclasses say why. Nothing of the call is left waiting in the line. */
public class GateClientException extends Exception {

    private static final long serialVersionUID = 1L;

    public GateClientException(String message) {
        super(message);
    }

    public GateClientException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Calls are paused: the gate's database is unavailable (HTTP 503 "Calls are paused"). Try again later. */
    public static class Paused extends GateClientException {
        private static final long serialVersionUID = 1L;

        public Paused(String message) {
            super(message);
        }
    }

    /**
     * The gate itself could not be reached (refused, cut, timed out), even after sending again for a while: as
     * "paused" for the caller, no grant.
     */
    public static final class Unreachable extends Paused {
        private static final long serialVersionUID = 1L;

        public Unreachable(String message) {
            super(message);
        }
    }

    /**
     * The gate is up but busy (HTTP 503 "busy": a crowd of requests, a lock held elsewhere), and the wait did not
     * leave time to ask again: try again shortly. As "paused" for a caller that handles only that.
     */
    public static final class Busy extends Paused {
        private static final long serialVersionUID = 1L;

        public Busy(String message) {
            super(message);
        }
    }

    /** Not granted within the wait given to {@code acquire}; the call has left the line. */
    public static final class Timeout extends GateClientException {
        private static final long serialVersionUID = 1L;

        public Timeout(String message) {
            super(message);
        }
    }

    /** The line and the rate say the call cannot be granted before its deadline (HTTP 429); nothing joined. */
    public static final class DeadlineMissed extends GateClientException {
        private static final long serialVersionUID = 1L;

        public DeadlineMissed(String message) {
            super(message);
        }
    }

    /**
     * The limit's line is full (HTTP 429 "line-full": its maxWaiting, the program's maxWaitingPerProgram, or a keyed
     * limit's maxKeys): nothing joined. {@link #retryAfter()}: the line's estimate of when a place may free.
     */
    public static final class LineFull extends GateClientException {
        private static final long serialVersionUID = 1L;
        private final java.time.Duration retryAfter;

        public LineFull(String message, java.time.Duration retryAfter) {
            super(message);
            this.retryAfter = retryAfter;
        }

        public java.time.Duration retryAfter() {
            return retryAfter;
        }
    }

    /**
     * The gate holds this account's sign-ins from this host for now (HTTP 429 "sign-in-held": too many failed sign-ins
     * for its name here, or someone here guessing names): nothing was checked or done. {@link #retryAfter()}: when the
     * hold ends (the gate's Retry-After). An outcome so refused is kept and sent again then ({@link Permit}).
     */
    public static final class SignInHeld extends GateClientException {
        private static final long serialVersionUID = 1L;
        private final java.time.Duration retryAfter;

        public SignInHeld(String message, java.time.Duration retryAfter) {
            super(message);
            this.retryAfter = retryAfter;
        }

        public java.time.Duration retryAfter() {
            return retryAfter;
        }
    }

    /** There is no limit of that name (HTTP 404). */
    public static final class UnknownLimit extends GateClientException {
        private static final long serialVersionUID = 1L;

        public UnknownLimit(String message) {
            super(message);
        }
    }

    /** The call ended without a grant while it waited: cancelled by an operator, or expired. */
    public static final class Ended extends GateClientException {
        private static final long serialVersionUID = 1L;

        public Ended(String message) {
            super(message);
        }
    }
}
