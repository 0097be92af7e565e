package dev.gate.engine;

import dev.gate.api.GateException;
import dev.gate.api.GateFailedException;
import dev.gate.store.Outcomes;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Outcomes of this instance's calls reported while others are being recorded are recorded together
 * ({@link JoinGroups}, one group for the instance: an outcome takes no lock another waits on): the common ones (no
 * vendor count, no "slow down", a limit not cooling down and with no parent, a call with no concurrency key) in one
 * statement and one commit ({@link Outcomes#recordPlain}); every other, and one the statement did not end, in a
 * transaction of its own. Each caller hears what the database holds once its group's statement has answered, as alone;
 * a group that fails fails each of its callers (nothing of it recorded, or, its answer lost, each report sent again
 * is told as such).
 */
final class GroupRecording {

    private static final Logger LOG = Logger.getLogger(GroupRecording.class.getName());

    /** Benchmarks only ({@code -Dgate.outcome.alone=true}): every outcome recorded on its own. */
    static final boolean ALONE = Boolean.getBoolean("gate.outcome.alone");

    private static final String INSTANCE = ""; // the one group's name

    private final Admission admission;
    private final Outcomes outcomes;
    private final JoinGroups<Outcomes.Plain, Boolean> groups = new JoinGroups<>(this::recordGroup);
    // outcomes recorded in a group of two or more, since start (tests: that groups formed)
    private final AtomicLong grouped = new AtomicLong();

    GroupRecording(Admission admission, Outcomes outcomes) {
        this.admission = admission;
        this.outcomes = outcomes;
    }

    /** Outcomes recorded in a group of two or more since this instance started. */
    long grouped() {
        return grouped.get();
    }

    /** The group (for tests: who waits for it). */
    JoinGroups<?, ?> groups() {
        return groups;
    }

    /** The group's name in {@link #groups()}. */
    static String group() {
        return INSTANCE;
    }

    /** As {@link Outcomes#record}, with whoever reports with it. */
    Outcomes.Result record(long callId, Outcomes.Whose whose, int status, Integer retryAfterSeconds,
                           Outcomes.VendorReport report, Consumer<Outcomes.VendorTaken> taken) throws GateException {
        if (ALONE || !Outcomes.mayBePlain(status, retryAfterSeconds, report)) {
            return admission.run(() -> outcomes.record(callId, whose, status, retryAfterSeconds, report, taken));
        }
        boolean recorded;
        try {
            recorded = groups.join(INSTANCE, new Outcomes.Plain(callId, whose, status, retryAfterSeconds));
        } catch (GateException | RuntimeException e) {
            throw e;
        } catch (Exception e) { // logged once, by the group's leader (recordGroup)
            throw new GateFailedException("the gate failed to record the outcome of call " + callId
                    + " (see the gate's log); report it again", e);
        }
        if (recorded) {
            return Outcomes.Result.RECORDED;
        }
        return admission.run(() -> outcomes.recordInFull(callId, whose, status, retryAfterSeconds, report, taken));
    }

    /** A group's common outcomes: one statement, whose answer says which it ended. */
    private List<Boolean> recordGroup(String instance, List<Outcomes.Plain> members) throws GateException {
        try {
            boolean[] recorded = admission.run(() -> outcomes.recordPlain(members));
            if (members.size() > 1) {
                grouped.addAndGet(members.size());
            }
            List<Boolean> answers = new ArrayList<>(recorded.length);
            for (boolean r : recorded) {
                answers.add(r);
            }
            return answers;
        } catch (RuntimeException e) {
            // the operators' log has the cause once; each member hears the step, not the database's text
            LOG.log(Level.SEVERE, members.size() + " outcomes failed together", e);
            throw e;
        }
    }
}
