package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.GateException;
import dev.gate.api.GateFailedException;
import dev.gate.api.GatePausedException;
import dev.gate.domain.CallRow;
import dev.gate.domain.Grant;
import dev.gate.store.GroupJoins;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Calls of this instance arriving at a limit together join together ({@link JoinGroups}): one statement and one
 * commit for the group, with the grant of what is due ({@link GroupJoins#joinGroupAndGrant}). A call the group
 * cannot take joins alone ({@link Joining}).
 */
final class GroupJoining {

    private static final Logger LOG = Logger.getLogger(GroupJoining.class.getName());

    /** Benchmarks only ({@code -Dgate.join.alone=true}): every call joins on its own, as before group joins. */
    static final boolean ALONE = Boolean.getBoolean("gate.join.alone");

    private final Admission admission;
    private final GroupJoins groupJoins;
    private final Hearers hearers;
    private final GrantLoop loop;
    private final Tally tally;
    private final JoinGroups<Member, Optional<CallRow>> groups = new JoinGroups<>(this::joinGroup);

    GroupJoining(Admission admission, GroupJoins groupJoins, Hearers hearers, GrantLoop loop, Tally tally) {
        this.admission = admission;
        this.groupJoins = groupJoins;
        this.hearers = hearers;
        this.loop = loop;
        this.tally = tally;
    }

    /** The groups of calls joining together (for tests: who waits for a group's join). */
    JoinGroups<?, ?> groups() {
        return groups;
    }

    /**
     * One call of a group join, and what the join registers for it before its row commits (as the join of one
     * does): the waiter or watch that hears of its grant, and the id it got (a retried group's earlier id dropped).
     */
    private final class Member {
        final CallClass callClass;
        final String program;
        final String owner;
        final Duration lease;
        final Joining.Hears hears;
        final AtomicReference<Long> inserted = new AtomicReference<>();
        final AtomicReference<CompletableFuture<Grant>> granted = new AtomicReference<>();
        final AtomicReference<CompletableFuture<CallRow>> watch = new AtomicReference<>();

        Member(CallClass callClass, String program, String owner, Duration lease, Joining.Hears hears) {
            this.callClass = callClass;
            this.program = program;
            this.owner = owner;
            this.lease = lease;
            this.hears = hears;
        }

        void beforeCommit(long callId) {
            hearers.registered(callId, hears, inserted, granted, watch);
        }
    }

    /**
     * The call joins with whoever arrives at the limit with it ({@link JoinGroups}); empty when the group could not
     * take it (a cap, a limit whose calls join one by one): it then joins alone. A group's failure is the call's.
     */
    Optional<Joining.Entry> grouped(String limit, CallClass callClass, String program, String owner, Duration lease,
                                    Joining.Hears hears) throws GateException {
        Member m = new Member(callClass, program, owner, lease, hears);
        Optional<CallRow> row;
        try {
            row = groups.join(limit, m);
        } catch (GateException e) {
            if (e instanceof GatePausedException) {
                tally.turnedAwayPaused();
            }
            throw hearers.failed(m.inserted.get(), e);
        } catch (Exception e) { // logged once, by the group's leader (joinGroup)
            throw hearers.failed(m.inserted.get(), new GateFailedException("the gate failed to take a call on limit "
                    + limit + "; nothing joined (see the gate's log)", e));
        }
        if (row.isEmpty()) {
            return Optional.empty();
        }
        CallRow r = row.get();
        LOG.fine(() -> "call " + r.id() + " limit=" + limit + " class=" + callClass + " joined the line for "
                + program + " (with the calls that arrived with it)");
        return Optional.of(new Joining.Entry(r.id(), false, false, m.granted.get(), row, m.watch.get()));
    }

    /** A group's join: one statement and one commit for its members, the pass made under it delivered after. */
    private List<Optional<CallRow>> joinGroup(String limit, List<Member> members) throws GateException {
        try (Delivery.Pending pending = loop.pending()) {
            GroupJoins.GroupEntered entered = admission.run(() -> groupJoins.joinGroupAndGrant(limit, members.stream()
                    .map(m -> new GroupJoins.GroupMember(m.callClass, m.program, m.owner, m.lease, m::beforeCommit))
                    .toList(), pending::hold));
            loop.passMade(entered.pass());
            return entered.rows();
        } catch (RuntimeException e) {
            // the operators' log has the cause once; each member hears the step, not the database's text
            LOG.log(Level.SEVERE, members.size() + " calls on limit " + limit + " failed to join together", e);
            throw e;
        }
    }
}
