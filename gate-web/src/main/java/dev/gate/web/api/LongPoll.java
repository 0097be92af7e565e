package dev.gate.web.api;

import dev.gate.client.GateException;
import dev.gate.ejb.SlotLoop;
import dev.gate.line.CallState;
import dev.gate.store.CallRow;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.core.Response;

import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Holds an HTTP answer until a waiting call leaves WAITING or the wait passes, without a thread per waiter: the
 * answer is resumed from the grant (this instance's loop, another's notification, or the poll) or the timeout.
 */
@ApplicationScoped
public class LongPoll {

    @EJB
    SlotLoop slotLoop;

    void answer(AsyncResponse response, String program, CallRow call, int waitSeconds,
                Function<CallRow, Response> render) {
        if (waitSeconds == 0 || call.state() != CallState.WAITING) {
            response.resume(render.apply(call));
            return;
        }
        response.setTimeout(waitSeconds, TimeUnit.SECONDS);
        response.setTimeoutHandler(r -> resumeWithCurrent(r, program, call.id(), render));
        slotLoop.engine().whenSettled(call.id()).thenRun(() -> resumeWithCurrent(response, program, call.id(),
                render));
        // settled between the read and the watch: answer now rather than at the next poll
        resumeIfSettled(response, program, call.id(), render);
    }

    private void resumeIfSettled(AsyncResponse response, String program, long id, Function<CallRow, Response> render) {
        try {
            CallRow now = current(program, id);
            if (now.state() != CallState.WAITING) {
                response.resume(render.apply(now));
            }
        } catch (GateException | RuntimeException e) {
            response.resume(e);
        }
    }

    private void resumeWithCurrent(AsyncResponse response, String program, long id,
                                   Function<CallRow, Response> render) {
        if (response.isDone()) {
            return;
        }
        try {
            response.resume(render.apply(current(program, id)));
        } catch (GateException | RuntimeException e) {
            response.resume(e);
        }
    }

    /** The call's JSON, with its position and estimated grant time while it waits. */
    String json(CallRow row) {
        return json(row, null);
    }

    /** As {@link #json(CallRow)}; with {@code joined} set, the answer says whether a dedupe key joined a call. */
    String json(CallRow row, Boolean joined) {
        java.util.Optional<dev.gate.store.Estimate> estimate = java.util.Optional.empty();
        if (row.state() == CallState.WAITING) {
            try {
                estimate = slotLoop.engine().estimate(row.id());
            } catch (GateException e) {
                // the database is gone between two reads: the call is shown without its estimate
            }
        }
        jakarta.json.JsonObject view = Views.call(row, estimate);
        return joined == null ? view.toString()
                : jakarta.json.Json.createObjectBuilder(view).add("joined", joined).build().toString();
    }

    private CallRow current(String program, long id) throws GateException {
        return slotLoop.engine().visibleCall(program, id)
                .orElseThrow(() -> ProblemException.notFound("call: no call " + id));
    }
}
