package dev.gate.batch;

/** One item got more "slow down" answers from the vendor than its step allows: the step fails (restartable). */
public class SlowDownsExhausted extends Exception {

    private static final long serialVersionUID = 1L;

    public SlowDownsExhausted(String message) {
        super(message);
    }
}
