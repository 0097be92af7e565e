package dev.gate.web.api;

import dev.gate.app.CallView;
import dev.gate.app.Programs;
import dev.gate.api.GateException;
import jakarta.annotation.Resource;
import jakarta.ejb.EJB;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.core.Response;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Holds an HTTP answer until a waiting call leaves WAITING or the wait passes, without a thread per waiter: the
 * answer is resumed when the call leaves WAITING (this instance's loop, another's notification, or the poll: the
 * news arrives on a managed thread) or at the timeout.
 *
 * <p>The timeout is the JDK's ({@code completeOnTimeout}, cancelled when the news comes first), not
 * {@link AsyncResponse#setTimeout}: RESTEasy's schedules every timeout through a contextual executor that looks its
 * thread-context providers up with {@link java.util.ServiceLoader} each time (a scan of the EAR's jars, measured at
 * 7-9% of the server's CPU with 4 callers whose calls wait). RESTEasy suspends without a timeout of its own.
 * An account holds at most {@code gate.long-polls.per-account} answers at once; past it, answers go at once.
 */
@ApplicationScoped
public class LongPoll {

    /**
     * Most answers held at once for one account ({@code gate.long-polls.per-account}, env
     * {@code GATE_LONG_POLLS_PER_ACCOUNT}): past it a request is answered at once with the call as it is, so one
     * program's flood of long-polls cannot hold the server's connections and memory.
     */
    static final int DEFAULT_HELD_PER_ACCOUNT = 500;

    private final int heldPerAccount = org.eclipse.microprofile.config.ConfigProvider.getConfig()
            .getOptionalValue("gate.long-polls.per-account", Integer.class).orElse(DEFAULT_HELD_PER_ACCOUNT);

    private final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicInteger> held =
            new java.util.concurrent.ConcurrentHashMap<>();

    @EJB
    Programs programs;

    /**
     * Takes one of the account's holds; false when it has all of them (then the answer goes at once). The hold is
     * given back when the response completes, however it does (resumed, failed, the connection gone).
     */
    private boolean hold(AsyncResponse response, String program) {
        java.util.concurrent.atomic.AtomicInteger mine = held.computeIfAbsent(program,
                p -> new java.util.concurrent.atomic.AtomicInteger());
        if (mine.incrementAndGet() > heldPerAccount) {
            mine.decrementAndGet();
            return false;
        }
        response.register((jakarta.ws.rs.container.CompletionCallback) failure -> mine.decrementAndGet());
        return true;
    }

    /** Where a timed-out wait reads the call: never on the JDK's single timer thread. */
    @Resource
    ManagedExecutorService executor;

    void answer(AsyncResponse response, String program, CallView call, int waitSeconds,
                Function<CallView, Response> render) {
        answer(response, program, call, waitSeconds, render, Optional.empty());
    }

    /**
     * As above; {@code watchedBefore}: the call's watch, registered before {@code call} was read (a submission's,
     * before its row committed), so the call cannot have left WAITING unseen: it is not read again until it does.
     */
    void answer(AsyncResponse response, String program, CallView call, int waitSeconds,
                Function<CallView, Response> render, Optional<CompletableFuture<Optional<CallView>>> watchedBefore) {
        if (waitSeconds == 0 || !call.waiting()) {
            response.resume(render.apply(call));
            return;
        }
        if (!hold(response, program)) {
            // answered at once after all: a submission's view made for holding has no estimate, so read it whole
            if (watchedBefore.isPresent()) {
                whenLeft(response, program, call.id(), System.nanoTime(), render, Left.NOT_YET);
            } else {
                response.resume(render.apply(call));
            }
            return;
        }
        long untilNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(waitSeconds);
        onLeft(watchedBefore.orElseGet(() -> programs.whenLeftWaiting(call.id())), response, program, call.id(),
                untilNanos, render);
        if (watchedBefore.isPresent()) {
            return;
        }
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

    /** What a watch said when the answer was due: the call left WAITING (and maybe as what), or not yet. */
    private record Left(boolean left, Optional<CallView> as) {
        static final Left NOT_YET = new Left(false, Optional.empty());
    }

    /** When {@code watch} completes (the call left WAITING) or the wait passes, {@link #whenLeft}. */
    private void onLeft(CompletableFuture<Optional<CallView>> watch, AsyncResponse response, String program, long id,
                        long untilNanos, Function<CallView, Response> render) {
        // a future of our own (the engine's is never completed from here); a failed watch answers at once. The read
        // and the answer run on the web's own executor: never on the engine's thread that brought the news, nor on
        // the JDK's single timer thread
        watch.handle((as, failed) -> failed == null ? new Left(true, as) : Left.NOT_YET)
                .completeOnTimeout(Left.NOT_YET, Math.max(0, untilNanos - System.nanoTime()), TimeUnit.NANOSECONDS)
                .thenAcceptAsync(left -> whenLeft(response, program, id, untilNanos, render, left), executor);
    }

    /**
     * The call as it left WAITING answers when the news brought it (a grant made here: no read), else the call as it
     * is now; but if its watch ended while it still waits (the instance's poll can end a watch whose call's row had
     * not committed yet: a submission's, registered before), it is watched again.
     */
    private void whenLeft(AsyncResponse response, String program, long id, long untilNanos,
                          Function<CallView, Response> render, Left left) {
        if (response.isDone()) {
            return;
        }
        if (left.as().isPresent()) {
            response.resume(render.apply(left.as().get()));
            return;
        }
        try {
            CallView now = current(program, id);
            if (left.left() && now.waiting() && untilNanos - System.nanoTime() > 0) {
                onLeft(programs.whenLeftWaiting(id), response, program, id, untilNanos, render);
                return;
            }
            response.resume(render.apply(now));
        } catch (GateException | RuntimeException e) {
            response.resume(e);
        }
    }

    /**
     * Holds the answer until the call is done (its outcome reported, or ended without one) or the wait passes: a
     * dedupe joiner's wait for the first caller's outcome. The call's watch completes when it leaves WAITING, and for
     * a granted call at each poll of this instance, so the call is read again at most once a poll.
     */
    void answerWhenDone(AsyncResponse response, String program, CallView call, int waitSeconds,
                        Function<CallView, Response> render) {
        if (waitSeconds > 0 && !call.done() && !hold(response, program)) {
            response.resume(render.apply(call));
            return;
        }
        untilDone(response, program, call.id(), System.nanoTime() + TimeUnit.SECONDS.toNanos(waitSeconds), render);
    }

    private void untilDone(AsyncResponse response, String program, long id, long untilNanos,
                           Function<CallView, Response> render) {
        CallView now;
        try {
            now = current(program, id);
        } catch (GateException | RuntimeException e) {
            response.resume(e);
            return;
        }
        long left = untilNanos - System.nanoTime();
        if (now.done() || left <= 0) {
            response.resume(render.apply(now));
            return;
        }
        programs.whenLeftWaiting(id).handle((changed, failed) -> failed == null)
                .completeOnTimeout(Boolean.FALSE, left, TimeUnit.NANOSECONDS)
                .thenRun(() -> executor.execute(() -> untilDone(response, program, id, untilNanos, render)));
    }

    private CallView current(String program, long id) throws GateException {
        return programs.visible(program, id).orElseThrow(() -> ProblemException.notFound("call: no call " + id));
    }
}
