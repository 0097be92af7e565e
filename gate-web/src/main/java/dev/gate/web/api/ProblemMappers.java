package dev.gate.web.api;

import dev.gate.web.problem.Problem;

import dev.gate.app.JobRefusedException;
import dev.gate.api.DeadlineException;
import dev.gate.api.GateBusyException;
import dev.gate.api.GateException;
import dev.gate.api.GatePausedException;
import dev.gate.api.GateFailedException;
import dev.gate.api.InvalidRequestException;
import dev.gate.api.KeyedLimitException;
import dev.gate.api.LineFullException;
import dev.gate.api.SubmissionKeyReusedException;
import dev.gate.api.UnknownLimitException;
import jakarta.json.stream.JsonParsingException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

import java.util.logging.Level;
import java.util.logging.Logger;

/** Every error as problem+json: the gate's own refusals, JAX-RS's (404, 405, 415 ...), and the unexpected. */
public final class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class.getName());

    private ProblemMappers() {
    }

    @Provider
    public static class Refused implements ExceptionMapper<ProblemException> {
        @Override
        public Response toResponse(ProblemException e) {
            return e.problem().response();
        }
    }

    /**
     * The database is unavailable: 503 with Retry-After, and a title that says calls are paused. The detail is the
     * same words every time: the database's own text (its host, its SQL state) is for the log, where the engine
     * wrote it once when calls paused.
     */
    @Provider
    public static class Paused implements ExceptionMapper<GatePausedException> {
        @Override
        public Response toResponse(GatePausedException e) {
            LOG.fine(() -> "answered 503 paused: " + e.getMessage());
            return retryLater(PAUSED);
        }
    }

    /**
     * The database answered but was busy (a lock held too long elsewhere): 503 "busy", try again; not a pause. The
     * database's text stays in the log.
     */
    @Provider
    public static class Busy implements ExceptionMapper<GateBusyException> {
        @Override
        public Response toResponse(GateBusyException e) {
            LOG.fine(() -> "answered 503 busy: " + e.getMessage());
            return retryLater(Problem.of(503, "busy", "Gate is busy",
                    "the gate's database is busy; try again shortly"));
        }
    }

    /** A request (a limit declaration, a drain) the gate cannot take: 400, the detail naming the field. */
    @Provider
    public static class InvalidRequest implements ExceptionMapper<InvalidRequestException> {
        @Override
        public Response toResponse(InvalidRequestException e) {
            return Problem.of(400, "invalid-request", "Invalid request", e.getMessage()).response();
        }
    }

    /** A fault of the gate's own (logged there with its cause): 500, the step named, no database text. */
    @Provider
    public static class Failed implements ExceptionMapper<GateFailedException> {
        @Override
        public Response toResponse(GateFailedException e) {
            return Problem.of(500, "internal", "Internal error", e.getMessage()).response();
        }
    }

    /** A call that ended without a grant, or any other refusal of the gate's that has no mapper of its own. */
    @Provider
    public static class Refusal implements ExceptionMapper<GateException> {
        @Override
        public Response toResponse(GateException e) {
            return Problem.of(409, "call-ended", "Call ended", e.getMessage()).response();
        }
    }

    /** An operator's request on a backfill job the gate cannot do: 400, 404 or 409, the detail saying why. */
    @Provider
    public static class JobRefused implements ExceptionMapper<JobRefusedException> {
        @Override
        public Response toResponse(JobRefusedException e) {
            return switch (e.kind()) {
                case INVALID -> Problem.of(400, "invalid-request", "Invalid request", e.getMessage()).response();
                case NOT_FOUND -> Problem.of(404, "not-found", "Not found", "job: " + e.getMessage()).response();
                case CONFLICT -> Problem.of(409, "job-state", "Job cannot do that now", "job: " + e.getMessage())
                        .response();
            };
        }
    }

    /** An Idempotency-Key sent again for another request: 422, as the IETF draft asks. */
    @Provider
    public static class SubmissionKeyReused implements ExceptionMapper<SubmissionKeyReusedException> {
        @Override
        public Response toResponse(SubmissionKeyReusedException e) {
            return Problem.of(422, "submission-key-reused", "Submission key used before",
                    LimitsResource.SUBMISSION_KEY + ": " + e.getMessage()).response();
        }
    }

    /** A call without a key on a keyed limit, or with one on another: 400, nothing joined. */
    @Provider
    public static class KeyedLimit implements ExceptionMapper<KeyedLimitException> {
        @Override
        public Response toResponse(KeyedLimitException e) {
            return Problem.of(400, "keyed-limit", "Key and limit disagree", "key: " + e.getMessage()).response();
        }
    }

    @Provider
    public static class UnknownLimit implements ExceptionMapper<UnknownLimitException> {
        @Override
        public Response toResponse(UnknownLimitException e) {
            return Problem.of(404, "unknown-limit", "Unknown limit", "limit: " + e.getMessage()).response();
        }
    }

    /**
     * The line is full (maxWaiting, maxWaitingPerProgram, maxKeys): 429 {@code line-full} with Retry-After (whole
     * seconds, rounded up, at least 1) and {@code retryAfterMs}, the line's estimate; nothing joined.
     */
    @Provider
    public static class LineFull implements ExceptionMapper<LineFullException> {
        @Override
        public Response toResponse(LineFullException e) {
            long ms = Math.max(1, e.retryAfter().toMillis());
            Problem p = Problem.of(429, "line-full", "Line is full", e.getMessage());
            String body = JsonBuilders.object(p.json()).add("retryAfterMs", ms).build().toString();
            return Response.status(429).type(Problem.MEDIA_TYPE).header("Retry-After", (ms + 999) / 1000)
                    .entity(body).build();
        }
    }

    /** The deadline cannot be met: 429 with the estimated wait, and nothing joined the line. */
    @Provider
    public static class Deadline implements ExceptionMapper<DeadlineException> {
        @Override
        public Response toResponse(DeadlineException e) {
            Problem p = Problem.of(429, "deadline", "Deadline cannot be met", "deadlineSeconds: " + e.getMessage());
            String body = JsonBuilders.object(p.json())
                    .add("estimatedWaitMs", e.estimatedWait().toMillis())
                    .add("estimatedGrantAt", e.estimatedGrantAt().toString()).build().toString();
            return Response.status(429).type(Problem.MEDIA_TYPE).entity(body).build();
        }
    }

    @Provider
    public static class Malformed implements ExceptionMapper<JsonParsingException> {
        @Override
        public Response toResponse(JsonParsingException e) {
            return Problem.of(400, "malformed-json", "Malformed JSON", "body: " + e.getMessage()).response();
        }
    }

    @Provider
    public static class JaxRs implements ExceptionMapper<WebApplicationException> {
        @Override
        public Response toResponse(WebApplicationException e) {
            int status = e.getResponse().getStatus();
            Response.StatusType type = Response.Status.fromStatusCode(status);
            String title = type == null ? "HTTP " + status : type.getReasonPhrase();
            // JAX-RS's own message names the server's address and its classes: the status says it all
            return Problem.of(status, "http-" + status, title, "request: " + title.toLowerCase(java.util.Locale.ROOT))
                    .response();
        }
    }

    /** A container-managed step (JPA) that failed because the database is gone is "paused" too, not a bug. */
    @Provider
    public static class Container implements ExceptionMapper<jakarta.ejb.EJBException> {
        @Override
        public Response toResponse(jakarta.ejb.EJBException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof java.sql.SQLException sql && (sql.getSQLState() == null
                        || sql.getSQLState().startsWith("08")) || t instanceof java.net.ConnectException) {
                    LOG.fine("answered 503 paused: " + t);
                    return retryLater(PAUSED);
                }
            }
            return new Unexpected().toResponse(e);
        }
    }

    /** Nothing a client sends may make the gate answer with a stack trace; this is logged as a bug. */
    @Provider
    public static class Unexpected implements ExceptionMapper<RuntimeException> {
        @Override
        public Response toResponse(RuntimeException e) {
            if (e instanceof WebApplicationException w) {
                return new JaxRs().toResponse(w);
            }
            LOG.log(Level.SEVERE, "unexpected error in the gate's API", e);
            return Problem.of(500, "internal", "Internal error", "the gate failed to answer; see its log").response();
        }
    }

    /** What a client is told while the database is unavailable, whatever the database said. */
    public static final Problem PAUSED = Problem.of(503, "paused", "Calls are paused",
            GatePausedException.MESSAGE + "; try again shortly");

    /** A 503 that the caller may simply ask again, a second later. */
    static Response retryLater(Problem problem) {
        return Response.fromResponse(problem.response()).header("Retry-After", "1").build();
    }
}
