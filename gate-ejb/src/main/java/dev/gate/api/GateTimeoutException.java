package dev.gate.api;

import java.time.Duration;

/** The call was not granted within the caller's maximum wait; it has left the line. */
public class GateTimeoutException extends GateException {

    private static final long serialVersionUID = 1L;

    private final long callId;

    public GateTimeoutException(String limit, long callId, Duration maxWait) {
        super("call " + callId + " on limit '" + limit + "' was not granted within " + maxWait
                + "; it has left the line");
        this.callId = callId;
    }

    public GateTimeoutException(String message, long callId) {
        super(message);
        this.callId = callId;
    }

    public long callId() {
        return callId;
    }
}
