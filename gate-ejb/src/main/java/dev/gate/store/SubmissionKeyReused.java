package dev.gate.store;

/**
 * The program used the submission key before, for a call of another limit: the program's mistake. A join
 * ({@link SubmissionKeys}) and a try ({@link FreeSlot}, by {@link LostTryAnswers}) both find it.
 */
public final class SubmissionKeyReused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SubmissionKeyReused(String key, String limit) {
        super("submission key '" + key + "' was used before for a call of limit '" + limit + "'", null, false,
                false);
    }
}
