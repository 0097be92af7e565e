package dev.gate.app;

import dev.gate.domain.LimitRemoval;

import dev.gate.api.GateException;
import dev.gate.api.InvalidLimitException;
import dev.gate.api.LimitSpec;
import dev.gate.api.LimitStatus;
import dev.gate.api.UnknownLimitException;
import dev.gate.server.SlotLoop;
import dev.gate.engine.LimitControl;
import dev.gate.rules.LimitName;
import dev.gate.rules.Pace;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.EJB;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The limits: what operators see (each limit's rule, window use, next slot, waiting calls per class, cool-down) and
 * what they change. A declaration ({@link LimitSpec}, the same over HTTP and the remote {@code GateLimits} view) is
 * checked and turned into the line's rules in one place ({@code LimitControl.put}).
 */
@Singleton
@LocalBean
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class LimitAdmin {

    @EJB
    SlotLoop host;

    /** What a removal found: removed, or not found, or kept because calls still wait or hold grants. */
    public record Removal(boolean removed, boolean found, long liveCalls) {
    }

    public List<LimitStatus> all() throws GateException {
        return limits().status();
    }

    public Optional<LimitStatus> one(String name) throws GateException {
        return LimitName.isValid(name) ? limits().status(name) : Optional.empty();
    }

    /**
     * Creates (true) or changes (false) a limit, by {@code actor}'s hand (recorded); a change takes effect at the
     * next slot, never as a burst.
     */
    public boolean put(String name, LimitSpec spec, String actor) throws GateException {
        return limits().put(name, spec, actor);
    }

    /**
     * Changes only the limit's own rule to {@code calls} per {@code window} (its options and more rules stay), by
     * {@code actor}'s hand (recorded); takes effect at the next slot.
     */
    public void rePace(String name, int calls, Duration window, String actor) throws GateException {
        if (!LimitName.isValid(name)) {
            throw new UnknownLimitException(name);
        }
        Pace pace;
        try {
            pace = new Pace(calls, window);
        } catch (IllegalArgumentException e) {
            throw new InvalidLimitException("limit '" + name + "': " + e.getMessage());
        }
        limits().rePace(name, pace, actor);
    }

    /** Removes a limit with no live calls, and its history, by {@code actor}'s hand (recorded). */
    public Removal remove(String name, String actor) throws GateException {
        if (!LimitName.isValid(name)) {
            return new Removal(false, false, 0);
        }
        LimitRemoval r = limits().remove(name, actor);
        return new Removal(r.removed(), r.found(), r.liveCalls());
    }

    private LimitControl limits() {
        return host.engine().limits();
    }
}
