package dev.gate.web.api;

import dev.gate.app.CallView;
import dev.gate.app.Programs;
import dev.gate.client.GateException;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.core.Response;

import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Holds an HTTP answer until a waiting call leaves WAITING or the wait passes, without a thread per waiter: the
 * answer is resumed when the call leaves WAITING (this instance's loop, another's notification, or the poll: the
 * news arrives on a managed thread) or at the timeout.
 */
@ApplicationScoped
public class LongPoll {

    @EJB
    Programs programs;

    void answer(AsyncResponse response, String program, CallView call, int waitSeconds,
                Function<CallView, Response> render) {
        if (waitSeconds == 0 || !call.waiting()) {
            response.resume(render.apply(call));
            return;
        }
        response.setTimeout(waitSeconds, TimeUnit.SECONDS);
        response.setTimeoutHandler(r -> resumeWithCurrent(r, program, call.id(), render));
        programs.whenLeftWaiting(call.id()).thenRun(() -> resumeWithCurrent(response, program, call.id(), render));
        // left WAITING between the read and the watch: answer now rather than at the next poll
        try {
            CallView now = current(program, call.id());
            if (!now.waiting()) {
                response.resume(render.apply(now));
            }
        } catch (GateException | RuntimeException e) {
            response.resume(e);
        }
    }

    private void resumeWithCurrent(AsyncResponse response, String program, long id,
                                   Function<CallView, Response> render) {
        if (response.isDone()) {
            return;
        }
        try {
            response.resume(render.apply(current(program, id)));
        } catch (GateException | RuntimeException e) {
            response.resume(e);
        }
    }

    private CallView current(String program, long id) throws GateException {
        return programs.visible(program, id).orElseThrow(() -> ProblemException.notFound("call: no call " + id));
    }
}
