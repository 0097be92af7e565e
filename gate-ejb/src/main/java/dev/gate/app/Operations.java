package dev.gate.app;

import dev.gate.api.GateException;
import dev.gate.api.InvalidLimitException;
import dev.gate.api.InvalidRequestException;
import dev.gate.api.OperatorAction;
import dev.gate.api.UnknownLimitException;
import dev.gate.server.SlotLoop;
import dev.gate.rules.LimitName;
import dev.gate.rules.ProgramName;
import dev.gate.engine.OperatorActions;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.EJB;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * An operator's hand on the line: pause a limit for a time and resume it, cancel a waiting call, drain a program's
 * waiting calls, and the recent actions with who did them. Each action is recorded in the transaction that does it.
 */
@Singleton
@LocalBean
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Operations {

    /** The longest pause an operator can set in one go. */
    public static final Duration LONGEST_PAUSE = OperatorActions.LONGEST_PAUSE;

    /** How many recent actions the status page and the API show. */
    public static final int RECENT = 20;

    @EJB
    SlotLoop host;

    /** The gate's tables as the last upkeep check found them; empty before the first check. */
    public Optional<TableHealth> tables() {
        return host.engine().tables().status().map(s -> new TableHealth(s.tables().at(), s.autovacuumOff(),
                s.selfVacuum(), s.leftToGrow(),
                s.heldBack().map(h -> new TableHealth.HeldBack(h.who(), h.pid(), h.state(), h.since())),
                s.tables().seesAllSessions(),
                s.lastVacuum().map(v -> new TableHealth.Vacuum(v.table(), v.at(), v.result().name(),
                        v.deadRowsBefore(), v.took())),
                s.tables().tables().stream().map(t -> new TableHealth.Figures(t.care().name(), t.care().liveRows(),
                        t.care().deadRows(), t.bytes(), t.care().autovacuumOn())).toList()));
    }

    /** No grant on the limit for {@code span} (1 s to 7 days); answers the pause's end. */
    public Instant pause(String limit, Duration span, String actor) throws GateException {
        requireName(limit);
        try {
            return operators().pause(limit, span, actor);
        } catch (IllegalArgumentException e) {
            throw new InvalidLimitException(e.getMessage());
        }
    }

    /** Ends the limit's pause now (the operator's or the vendor's cool-down). */
    public void resume(String limit, String actor) throws GateException {
        requireName(limit);
        operators().resume(limit, actor);
    }

    /** Cancels a waiting call of the limit; false when it was not waiting there. */
    public boolean cancel(String limit, long callId, String actor) throws GateException {
        requireName(limit);
        return operators().cancel(limit, callId, actor);
    }

    /** Cancels every waiting call of the program (of one limit, when given); answers how many. */
    public int drain(String program, String limit, String actor) throws GateException {
        if (!ProgramName.isValid(program)) {
            throw new InvalidRequestException("program: must be 1-" + ProgramName.MAX + " characters, was "
                    + (program == null ? "none" : program.length() + " characters"));
        }
        if (limit != null) {
            requireName(limit);
        }
        return operators().drain(program, limit, actor);
    }

    /** The recent operator actions, newest first. */
    public List<OperatorAction> recent() throws GateException {
        return operators().recent(RECENT);
    }

    private static void requireName(String limit) throws UnknownLimitException {
        if (!LimitName.isValid(limit)) {
            throw new UnknownLimitException(limit);
        }
    }

    private OperatorActions operators() {
        return host.engine().operators();
    }
}
