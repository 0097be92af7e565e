package dev.gate.batch;

import dev.gate.app.Line;
import dev.gate.api.CallEndedException;
import dev.gate.api.GateException;
import dev.gate.api.GateTimeoutException;
import dev.gate.api.Outcome;
import dev.gate.api.Permit;
import jakarta.batch.api.BatchProperty;
import jakarta.batch.api.chunk.ItemProcessor;
import jakarta.batch.runtime.BatchStatus;
import jakarta.batch.runtime.context.JobContext;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.literal.NamedLiteral;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import java.util.logging.Logger;

/**
 * Any chunk step's vendor call through the gate: for each item (unless its {@link GatedCall} kept its answer from a
 * cut execution), a permit from the line, then the step's {@link GatedCall}, then its answer reported to the gate. A "slow down" answer (429, or 503 with Retry-After) pauses
 * the whole limit for every program, and the item joins the line again: it waits out the pause like everyone else,
 * never around it. A wait that outlasts {@code gate.maxWait} is asked again (a backfill gets what is left); a paused
 * or busy gate is waited out, never a reason to fail the job ({@link Patience}). The step runs with
 * {@code jberet.local-tx} (no chunk transaction spans the items' waits): its writer commits its own.
 *
 * <p>The program the line shows for these calls is {@code batch:<job name>}.
 */
@Named("gatedItemProcessor")
@Dependent
public class GatedItemProcessor implements ItemProcessor {

    private static final Logger LOG = Logger.getLogger(GatedItemProcessor.class.getName());

    @Inject
    @BatchProperty(name = "gate.limit")
    String limit;

    @Inject
    @BatchProperty(name = "gate.class")
    String callClass;

    @Inject
    @BatchProperty(name = "gate.maxWait")
    String maxWait;

    @Inject
    @BatchProperty(name = "gate.retries")
    String retries;

    @Inject
    @BatchProperty(name = "gate.call")
    String call;

    @Inject
    @BatchProperty(name = "gate.dedupeKey")
    String dedupeKey;

    @Inject
    @BatchProperty(name = "gate.concurrencyKey")
    String concurrencyKey;

    @Inject
    @BatchProperty(name = "gate.cost")
    String cost;

    @Inject
    JobContext job;

    @Inject
    @Any
    Instance<Object> beans;

    @EJB
    Line line;

    private GateProperties settings;
    private GatedCall<Object, Object> target;
    private Patience patience;

    @Override
    public Object processItem(Object item) throws Exception {
        GateProperties p = settings();
        java.util.Optional<Object> kept = patience.outlast("item " + item + " (its kept answer)",
                () -> target.kept(item, job));
        if (kept.isPresent()) {
            LOG.info("item " + item + " of job " + job.getJobName() + " execution " + job.getExecutionId()
                    + ": fetched before the last cut, kept; not fetched again");
            return kept.get();
        }
        String program = program();
        int slowDowns = 0;
        while (true) {
            Permit permit = acquire(p, program, item);
            if (permit.joined()) { // another caller's live call of the same dedupe key: it calls, this item shares
                Outcome shared;
                try {
                    shared = patience.outlast("item " + item + " (the outcome of call " + permit.callId() + ")",
                            () -> line.awaitOutcome(permit.callId(), p.maxWait()));
                } catch (GateTimeoutException | CallEndedException e) {
                    LOG.info("limit=" + p.limit() + " class=" + p.callClass() + ": item " + item + " of job "
                            + job.getJobName() + " had no outcome from call " + permit.callId() + " ("
                            + e.getMessage() + "); it joins the line again");
                    continue;
                }
                if (!new VendorAnswer<>(shared.status(), shared.retryAfter(), null).slowDown()) {
                    LOG.info("item " + item + " of job " + job.getJobName() + " shared call " + permit.callId()
                            + " (dedupe key): " + shared.status());
                    return target.shared(item, shared, job);
                }
                if (slowDowns++ >= p.retries()) {
                    throw exhausted(item, slowDowns, p);
                }
                continue;
            }
            VendorAnswer<Object> answer = call(permit, item);
            // the vendor answered: its answer (a 429 above all) reaches the gate, however long the gate is paused
            patience.outlast("call " + permit.callId() + " (its outcome, " + answer.status() + ")", () -> {
                line.complete(permit.callId(), answer.status(), answer.retryAfter());
                return null;
            });
            if (!answer.slowDown()) {
                return answer.result();
            }
            if (slowDowns++ >= p.retries()) {
                throw exhausted(item, slowDowns, p);
            }
            LOG.info("call " + permit.callId() + " limit=" + p.limit() + " class=" + p.callClass() + ": vendor said "
                    + answer.status() + " for item " + item + " of job " + job.getJobName() + " execution "
                    + job.getExecutionId() + "; the limit pauses, the item joins the line again");
        }
    }

    /**
     * The step's vendor call under its permit. When it throws (the vendor unreachable, an answer broken off) the grant
     * is given up at once: otherwise it would stay GRANTED to nobody, holding its keys until its lease ran out.
     */
    private VendorAnswer<Object> call(Permit permit, Object item) throws Exception {
        try {
            return target.call(item, job);
        } catch (Exception | Error e) {
            try {
                line.abandon(permit);
            } catch (RuntimeException | GateException failed) { // the database is out too: the lease ends it
                e.addSuppressed(failed);
            }
            throw e;
        }
    }

    /**
     * A permit for the item; a wait that outlasts gate.maxWait joins again, and a paused or busy gate is waited out
     * ({@link Patience}). Once the job is asked to stop (an
     * operator, or a server suspending for a restart) the wait ends: the chunk is cut, and what it fetched is kept by
     * its {@link GatedCall} for the restart.
     */
    private Permit acquire(GateProperties p, String program, Object item) throws Exception {
        while (true) {
            try {
                return patience.outlast("item " + item + " (its permit)", () -> line.acquire(p.limit(),
                        p.callClass(), p.maxWait(), program, p.options(item), () -> !stopping()));
            } catch (GateTimeoutException e) {
                LOG.info("limit=" + p.limit() + " class=" + p.callClass() + ": item " + item + " of job "
                        + job.getJobName() + " not granted within " + p.maxWait() + "; it joins the line again");
            }
        }
    }

    private SlowDownsExhausted exhausted(Object item, int slowDowns, GateProperties p) {
        return new SlowDownsExhausted("item " + item + " of job " + job.getJobName() + ": the vendor said slow down "
                + slowDowns + " times (gate.retries " + p.retries() + ")");
    }

    private boolean stopping() {
        return job.getBatchStatus() == BatchStatus.STOPPING;
    }

    private String program() {
        String name = "batch:" + job.getJobName();
        return name.length() <= 64 ? name : name.substring(0, 64);
    }

    @SuppressWarnings("unchecked")
    private GateProperties settings() {
        if (settings == null) {
            settings = GateProperties.parse(limit, callClass, maxWait, retries, call, dedupeKey, concurrencyKey, cost);
            Instance<Object> named = beans.select(NamedLiteral.of(settings.call()));
            if (!named.isResolvable() || !(named.get() instanceof GatedCall<?, ?> found)) {
                throw new IllegalArgumentException("gate.call: no @Named GatedCall '" + settings.call() + "'");
            }
            target = (GatedCall<Object, Object>) found;
            patience = new Patience(this::stopping, "job " + job.getJobName() + " execution " + job.getExecutionId());
        }
        return settings;
    }
}
