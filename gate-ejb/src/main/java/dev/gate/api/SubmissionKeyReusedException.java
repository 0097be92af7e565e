package dev.gate.api;

/**
 * A program sent a submission key it had used before for a call of another limit: a retry must repeat its request,
 * so this is the program's mistake; nothing joined the line.
 */
public class SubmissionKeyReusedException extends GateException {

    private static final long serialVersionUID = 1L;

    public SubmissionKeyReusedException(String message) {
        super(message);
    }
}
