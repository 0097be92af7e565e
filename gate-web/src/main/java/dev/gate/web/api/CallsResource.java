package dev.gate.web.api;

import dev.gate.web.problem.Problem;

import dev.gate.api.GateException;
import dev.gate.app.CallView;
import dev.gate.app.Programs;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
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
import java.util.Set;

/** {@code /gate/api/v1/calls/{id}}: a program's own calls (another program's call answers 404). */
@Path("/calls/{id}")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed("caller")
public class CallsResource {

    private static final Set<String> OUTCOME_FIELDS = Set.of("status", "retryAfterSeconds", "remaining",
            "resetSeconds", "quota");

    @EJB
    Programs programs;

    @Inject
    LongPoll longPoll;

    @Context
    SecurityContext security;

    /**
     * The call; with {@code waitSeconds}, held until it leaves WAITING or the time passes; with {@code until=done}
     * as well, held until its outcome is reported or it ends (a dedupe joiner's wait for the first caller's answer).
     */
    @Operation(summary = "The calling program's call; with waitSeconds, held until it leaves WAITING (until=done: until its outcome is reported or it ends)")
    @GET
    public void get(@PathParam("id") String id, @QueryParam("waitSeconds") String waitSeconds,
                    @QueryParam("until") String until, @Suspended AsyncResponse response) throws GateException {
        int wait = Bodies.queryInteger(waitSeconds, "waitSeconds", 0, 60, 0);
        if (until != null && !"done".equals(until)) {
            throw ProblemException.badRequest("until", "must be 'done' (or left out), was '" + until + "'");
        }
        long callId = Bodies.id(id);
        CallView call = programs.visible(program(), callId)
                .orElseThrow(() -> ProblemException.notFound("call: no call " + id));
        if (until != null) {
            longPoll.answerWhenDone(response, program(), call, wait, c -> Response.ok(Views.call(c).toString()).build());
        } else {
            longPoll.answer(response, program(), call, wait, c -> Response.ok(Views.call(c).toString()).build());
        }
    }

    /** Leaves the line (WAITING to CANCELLED). A granted call is not un-granted. */
    @Operation(summary = "Leave the line (WAITING to CANCELLED); 204; a granted call is not un-granted (409)")
    @DELETE
    public Response leave(@PathParam("id") String id) throws GateException {
        long call = Bodies.id(id);
        if (!programs.cancel(program(), call)) {
            throw refused(call, "only a WAITING call can leave the line");
        }
        return Response.noContent().build();
    }

    /** Renews this waiting or granted call's lease (a granted call keeps its keys until its outcome); answers it. */
    @Operation(summary = "Renew this waiting or granted call's lease; answers the call")
    @POST
    @Path("lease")
    public Response lease(@PathParam("id") String id) throws GateException {
        long call = Bodies.id(id);
        if (!programs.renew(program(), call)) {
            throw refused(call, "only a WAITING or GRANTED call holds a lease");
        }
        return Response.ok(Views.call(current(call)).toString()).build();
    }

    /** The program gives up its grant without calling the vendor: ABANDONED at once, its keys free (204). */
    @Operation(summary = "Give up a granted call without calling the vendor: GRANTED to ABANDONED, its keys free at once; 204")
    @POST
    @Path("abandon")
    public Response abandon(@PathParam("id") String id) throws GateException {
        long call = Bodies.id(id);
        if (!programs.abandon(program(), call)) {
            throw refused(call, "only a GRANTED call can be given up");
        }
        return Response.noContent().build();
    }

    /** How the vendor answered the granted call; it becomes DONE. */
    @Operation(summary = "Report the vendor's answer to a granted call: {status, retryAfterSeconds, remaining, resetSeconds, quota} (remaining and resetSeconds: the vendor's own count, both or neither; quota: the limit that count is of, if the vendor said); the call becomes DONE; 204")
    @POST
    @Path("outcome")
    public Response outcome(@PathParam("id") String id, InputStream body) throws GateException {
        long call = Bodies.id(id);
        JsonObject fields;
        int status;
        Integer retryAfter;
        Integer remaining;
        Long resetSeconds;
        Integer quota;
        try {
            fields = Bodies.object(body, OUTCOME_FIELDS);
            status = Bodies.integer(fields, "status", 100, 599, null);
            retryAfter = fields.containsKey("retryAfterSeconds") && !fields.isNull("retryAfterSeconds")
                    ? Bodies.integer(fields, "retryAfterSeconds", 0, 86_400, null) : null;
            // the vendor's own count: a count beyond the limit's rules is the gate's to ignore (and log), not a 400
            remaining = present(fields, "remaining")
                    ? Bodies.integer(fields, "remaining", 0, Integer.MAX_VALUE, null) : null;
            resetSeconds = present(fields, "resetSeconds")
                    ? (long) Bodies.integer(fields, "resetSeconds", 0, 31_622_400, null) : null;
            if ((remaining == null) != (resetSeconds == null)) {
                throw ProblemException.badRequest(remaining == null ? "remaining" : "resetSeconds",
                        "is required with " + (remaining == null ? "resetSeconds" : "remaining")
                                + ": the vendor's count is both");
            }
            quota = present(fields, "quota") ? Bodies.integer(fields, "quota", 1, 1_000_000_000, null) : null;
            if (quota != null && remaining == null) {
                throw ProblemException.badRequest("quota", "goes with remaining and resetSeconds: the quota a count "
                        + "is of");
            }
        } catch (ProblemException badBody) {
            own(call); // another program's call is a 404 (a joined one a 403) whatever the body says
            throw badBody;
        }
        if (!programs.outcome(program(), call, status, retryAfter, remaining, resetSeconds, quota)) {
            throw refused(call, "only a GRANTED call has an outcome to report");
        }
        return Response.noContent().build();
    }

    private static boolean present(JsonObject fields, String field) {
        return fields.containsKey(field) && !fields.isNull(field);
    }

    /**
     * Why the engine refused an action on a call: not the program's (404), only joined by it (403), or in the wrong
     * state (409). The engine's actions check the owner themselves, so this read happens only when one was refused,
     * never on the way to a success.
     */
    private ProblemException refused(long id, String why) throws GateException {
        own(id);
        return conflict(id, why);
    }

    /** The program's own call; a call it only joined (by a dedupe key) it may watch, not act on. */
    private void own(long id) throws GateException {
        switch (programs.find(program(), id)) {
            case OWN -> {
            }
            case JOINED_ONLY -> throw new ProblemException(Problem.of(403, "joined-call", "Joined call",
                    "call: " + id + " was joined by its dedupe key; only the program that submitted it acts on it"));
            default -> throw ProblemException.notFound("call: no call " + id);
        }
    }

    private CallView current(long id) throws GateException {
        return programs.visible(program(), id).orElseThrow(() -> ProblemException.notFound("call: no call " + id));
    }

    private String program() {
        return security.getUserPrincipal().getName();
    }

    private ProblemException conflict(long id, String why) throws GateException {
        CallView call = current(id);
        return new ProblemException(Problem.of(409, "wrong-state", "Call is " + call.state(),
                "state: call " + call.id() + " is " + call.state() + "; " + why));
    }
}
