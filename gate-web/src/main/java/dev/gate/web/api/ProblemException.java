package dev.gate.web.api;

import dev.gate.web.problem.Problem;

/** Thrown by the resources for a request the gate refuses; mapped to its problem. */
public class ProblemException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Problem problem;

    public ProblemException(Problem problem) {
        super(problem.detail());
        this.problem = problem;
    }

    public Problem problem() {
        return problem;
    }

    public static ProblemException badRequest(String field, String what) {
        return new ProblemException(Problem.of(400, "invalid-request", "Invalid request", field + ": " + what));
    }

    public static ProblemException notFound(String what) {
        return new ProblemException(Problem.of(404, "not-found", "Not found", what));
    }
}
