package dev.gate.web.api;

import dev.gate.web.problem.Problem;

import dev.gate.app.CallView;
import dev.gate.app.LimitAdmin;
import dev.gate.app.Operations;
import dev.gate.app.Programs;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GateException;
import dev.gate.api.LimitSpec;
import dev.gate.api.LimitStatus;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import org.eclipse.microprofile.openapi.annotations.Operation;

import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/** {@code /gate/api/v1/limits}: the limits with their live numbers, and joining a limit's line. */
@Path("/limits")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class LimitsResource {

    /**
     * The program's own name for one submission (IETF draft "The Idempotency-Key HTTP Header Field"): sent again
     * with a retry after a lost answer, it answers the call the first try made (200, {@code "repeated": true}).
     */
    static final String SUBMISSION_KEY = "Idempotency-Key";

    private static final Set<String> PAUSE_FIELDS = Set.of("seconds");
    private static final Set<String> CALL_FIELDS = Set.of("class", "leaseSeconds", "deadlineSeconds",
            "concurrencyKey", "dedupeKey", "key", "cost");

    @EJB
    LimitAdmin limits;

    @EJB
    Programs programs;

    @EJB
    Operations operations;

    @Inject
    LongPoll longPoll;

    @Context
    SecurityContext security;

    @Operation(summary = "Every limit: its rule, how much of the window is used, the next slot, who waits per class and for how long")
    @GET
    @RolesAllowed({"caller", "operator", "viewer"})
    public Response all() throws GateException {
        JsonArrayBuilder all = JsonBuilders.array();
        for (LimitStatus l : limits.all()) {
            all.add(Views.limit(l));
        }
        return Response.ok(all.build().toString()).build();
    }

    @Operation(summary = "One limit, as in the list (404 when there is none)")
    @GET
    @Path("{name}")
    @RolesAllowed({"caller", "operator", "viewer"})
    public Response one(@PathParam("name") String name) throws GateException {
        return Response.ok(find(name).toString()).build();
    }

    /** Creates (201) or changes (200) a limit; a change takes effect at the next slot, never as a burst. */
    @Operation(summary = "Create (201) or change (200) a limit; body {calls, windowSeconds}; a change takes effect at the next slot")
    @PUT
    @Path("{name}")
    @RolesAllowed("operator")
    public Response put(@PathParam("name") String name, InputStream body) throws GateException {
        LimitSpec spec = LimitDeclaration.parse(Bodies.object(body, LimitDeclaration.FIELDS));
        boolean created = limits.put(name, spec, actor());
        String view = find(name).toString();
        return created ? Response.created(URI.create("limits/" + name)).entity(view).build()
                : Response.ok(view).build();
    }

    /** Removes a limit with no live calls (204); 409 with the count of its live calls otherwise. */
    @Operation(summary = "Remove a limit and its history (204); 409 while it has waiting or granted calls; 404 when there is none")
    @DELETE
    @Path("{name}")
    @RolesAllowed("operator")
    public Response remove(@PathParam("name") String name) throws GateException {
        LimitAdmin.Removal removal = limits.remove(name, actor());
        if (!removal.found()) {
            throw ProblemException.notFound("limit: no limit named '" + name + "'");
        }
        if (!removal.removed()) {
            String body = JsonBuilders.object(Problem.of(409, "limit-in-use", "Limit has live calls",
                    "limit: '" + name + "' has " + removal.liveCalls() + " waiting or granted calls; remove it when "
                            + "they are done").json()).add("liveCalls", removal.liveCalls()).build().toString();
            return Response.status(409).type(Problem.MEDIA_TYPE).entity(body).build();
        }
        return Response.noContent().build();
    }

    /** An operator pauses the limit for a time: no grant before it ends; answers the limit. */
    @Operation(summary = "Pause a limit for a time (operator): body {seconds 1..604800}; no grant before it ends (a cool-down running longer is kept); answers the limit")
    @POST
    @Path("{name}/pause")
    @RolesAllowed("operator")
    public Response pause(@PathParam("name") String name, InputStream body) throws GateException {
        JsonObject fields = Bodies.object(body, PAUSE_FIELDS);
        int seconds = Bodies.integer(fields, "seconds", 1, Operations.LONGEST_PAUSE.toSeconds(), null);
        operations.pause(name, Duration.ofSeconds(seconds), actor());
        return Response.ok(find(name).toString()).build();
    }

    /** An operator ends the limit's pause now (theirs or the vendor's cool-down); answers the limit. */
    @Operation(summary = "Resume a paused limit now (operator): ends an operator's pause or a vendor cool-down; answers the limit")
    @POST
    @Path("{name}/resume")
    @RolesAllowed("operator")
    public Response resume(@PathParam("name") String name) throws GateException {
        operations.resume(name, actor());
        return Response.ok(find(name).toString()).build();
    }

    /** An operator cancels a waiting call of the limit (204); a granted or ended call is not touched (409). */
    @Operation(summary = "Cancel a waiting call of this limit (operator): 204; 409 when the call is not waiting on this limit")
    @DELETE
    @Path("{name}/calls/{id}")
    @RolesAllowed("operator")
    public Response cancel(@PathParam("name") String name, @PathParam("id") String id) throws GateException {
        long call = Bodies.id(id);
        find(name);
        if (!operations.cancel(name, call, actor())) {
            throw new ProblemException(Problem.of(409, "not-waiting", "Call is not waiting",
                    "call " + call + " is not waiting on limit '" + name + "' (granted, ended, or of another limit)"));
        }
        return Response.noContent().build();
    }

    /** Who does an operator's action: the account signed in. */
    private String actor() {
        return security.getUserPrincipal().getName();
    }

    /**
     * Joins the line; with {@code waitSeconds} the answer is held until the call is granted or the time passes. With
     * {@code mode=try}: granted now (201) or 429 with Retry-After, and nothing left in the line. With
     * {@code mode=consume}: a try whose call is the request itself (an inbound limit's): granted and ended in the same
     * statement (201, state DONE: no lease, no outcome to report) or 429 as a try.
     */
    @Operation(summary = "Join the line: body {class, leaseSeconds 5..300, cost 1..the smallest rule's calls}; with waitSeconds 0..60 the answer is held until granted; mode=try: granted now (201) or 429 with Retry-After and nothing left in the line; mode=consume: as try, the call granted and ended at once (DONE, no outcome to report)")
    @POST
    @Path("{name}/calls")
    @RolesAllowed("caller")
    public void join(@PathParam("name") String name, @QueryParam("waitSeconds") String waitSeconds,
                     @QueryParam("mode") String mode, @HeaderParam(SUBMISSION_KEY) String submissionKey,
                     InputStream body, @Suspended AsyncResponse response) throws GateException {
        int wait = Bodies.queryInteger(waitSeconds, "waitSeconds", 0, 60, 0);
        Mode how = mode(mode);
        boolean tryNow = how != Mode.WAIT;
        JsonObject fields = Bodies.object(body, CALL_FIELDS);
        CallClass callClass = callClass(Bodies.requiredString(fields, "class"));
        int lease = Bodies.integer(fields, "leaseSeconds", 5, 300, 30);
        // a consumed call ends at its grant: it holds no lease (one given is refused below)
        CallOptions options = (how == Mode.CONSUME ? CallOptions.NONE
                : CallOptions.NONE.withLease(Duration.ofSeconds(lease)))
                .withCost(Bodies.integer(fields, "cost", 1, Integer.MAX_VALUE, 1)); // at most the limit's smallest rule
        if (fields.containsKey("key") && !fields.isNull("key")) {
            options = options.withLimitKey(key(fields, "key")); // a keyed limit's key: the call joins its line
        }
        if (tryNow) {
            for (String option : List.of("deadlineSeconds", "concurrencyKey", "dedupeKey")) {
                if (fields.containsKey(option) && !fields.isNull(option)) {
                    throw ProblemException.badRequest(option, "not with mode=" + how.word
                            + ": a try is granted now or not at all");
                }
            }
            if (wait > 0) {
                throw ProblemException.badRequest("waitSeconds", "not with mode=" + how.word
                        + ": its answer is immediate");
            }
            if (how == Mode.CONSUME && fields.containsKey("leaseSeconds") && !fields.isNull("leaseSeconds")) {
                throw ProblemException.badRequest("leaseSeconds", "not with mode=consume: a consumed call ends at once,"
                        + " it holds no lease");
            }
            // with the program's Idempotency-Key a try sent again after a lost answer gets the grant it made
            String key = submissionKey == null ? null : checkedKey(submissionKey, SUBMISSION_KEY + " header");
            response.resume(tried(name, programs.tryNow(security.getUserPrincipal().getName(), name, callClass,
                    options, key, how == Mode.CONSUME)));
            return;
        }
        if (fields.containsKey("deadlineSeconds") && !fields.isNull("deadlineSeconds")) {
            options = options.withDeadline(Duration.ofSeconds(Bodies.integer(fields, "deadlineSeconds", 1, 86_400,
                    null)));
        }
        if (fields.containsKey("concurrencyKey") && !fields.isNull("concurrencyKey")) {
            options = options.withConcurrencyKey(key(fields, "concurrencyKey"));
        }
        String dedupeKey = null;
        if (fields.containsKey("dedupeKey") && !fields.isNull("dedupeKey")) {
            dedupeKey = key(fields, "dedupeKey");
        }
        if (submissionKey != null) {
            submissionKey = checkedKey(submissionKey, SUBMISSION_KEY + " header");
        }
        String program = security.getUserPrincipal().getName();
        // an answer that will be held: watched from before the call's row commits, read once, without an estimate
        Programs.Submission s = programs.submit(program, name, callClass, options, dedupeKey, submissionKey,
                wait > 0);
        longPoll.answer(response, program, s.call(), heldWithinLease(s.call(), wait), c -> s.joined() || s.repeated()
                ? Response.ok(Views.submitted(c, s.joined(), s.repeated()).toString())
                .location(URI.create("calls/" + c.id())).build()
                : Response.created(URI.create("calls/" + c.id())).entity(Views.submitted(c, false, false).toString())
                .build(), s.watch());
    }

    /** How a submission joins: waits in the line, tries now, or tries now and consumes. */
    private enum Mode {
        WAIT("wait"), TRY("try"), CONSUME("consume");

        final String word;

        Mode(String word) {
            this.word = word;
        }
    }

    private static Mode mode(String mode) {
        if (mode == null) {
            return Mode.WAIT;
        }
        for (Mode m : Mode.values()) {
            if (m.word.equals(mode)) {
                return m;
            }
        }
        throw ProblemException.badRequest("mode", "must be wait, try or consume, was '" + mode + "'");
    }

    /**
     * A try's answer: 201 with the granted call (200 with {@code "repeated": true} for a try sent again), or 429
     * (RFC 9457, with {@code retryAfterMs}) and Retry-After in
     * whole seconds, rounded up (the header has no finer unit).
     */
    private static Response tried(String limit, Programs.Tried t) {
        if (t.granted().isPresent()) {
            CallView c = t.granted().get();
            return t.repeated()
                    ? Response.ok(Views.submitted(c, false, true).toString()).location(URI.create("calls/" + c.id()))
                    .build()
                    : Response.created(URI.create("calls/" + c.id())).entity(Views.submitted(c, false, false)
                    .toString()).build();
        }
        long ms = Math.max(1, (t.retryAfter().toNanos() + 999_999) / 1_000_000);
        Problem problem = Problem.of(429, "no-free-slot", "No free slot now",
                "limit " + limit + ": no slot is free now; the next may be in " + ms + " ms");
        String body = JsonBuilders.object(problem.json()).add("retryAfterMs", ms).build().toString();
        return Response.status(429).type(Problem.MEDIA_TYPE).header("Retry-After", (ms + 999) / 1000).entity(body)
                .build();
    }

    /**
     * A submission's answer is held at most half the call's lease: until it is answered the program does not know
     * the call's id, so nothing renews the lease, and a longer hold would let the call expire under a caller still
     * waiting for it. Then the program long-polls {@code GET /calls/{id}} while it renews the lease.
     */
    private static int heldWithinLease(CallView call, int waitSeconds) {
        if (call.enqueuedAt() == null || call.leaseExpiresAt() == null) {
            return waitSeconds;
        }
        long leaseSeconds = Duration.between(call.enqueuedAt(), call.leaseExpiresAt()).toSeconds();
        return (int) Math.min(waitSeconds, Math.max(1, leaseSeconds / 2));
    }

    /** A key field, checked by the one rule for keys ({@link CallOptions}): a string of 1 to 200 characters. */
    private static String key(JsonObject fields, String field) {
        return checkedKey(Bodies.requiredString(fields, field), field);
    }

    private static String checkedKey(String key, String field) {
        try {
            CallOptions.NONE.withDedupeKey(key);
        } catch (IllegalArgumentException e) {
            throw ProblemException.badRequest(field, "must be " + e.getMessage().replace("a key is ", ""));
        }
        return key;
    }

    private JsonObject find(String name) throws GateException {
        return limits.one(name).map(Views::limit)
                .orElseThrow(() -> ProblemException.notFound("limit: no limit named '" + name + "'"));
    }

    private static CallClass callClass(String raw) {
        try {
            return CallClass.valueOf(raw);
        } catch (IllegalArgumentException e) {
            List<String> names = Arrays.stream(CallClass.values()).map(Enum::name).toList();
            throw ProblemException.badRequest("class", "must be one of " + names + ", was '" + raw + "'");
        }
    }
}
