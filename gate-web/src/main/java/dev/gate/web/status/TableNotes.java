package dev.gate.web.status;

import dev.gate.app.TableHealth;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the status page says of the gate's tables, in the operators' words: autovacuum off and who vacuums instead,
 * tables left to grow, a transaction holding vacuum back. Nothing when autovacuum looks after every table and no
 * transaction holds it back: the readiness check stays UP either way (it is not an outage).
 */
final class TableNotes {

    private TableNotes() {
    }

    static List<String> of(TableHealth h) {
        List<String> notes = new ArrayList<>();
        if (!h.leftToGrow().isEmpty()) {
            notes.add("Autovacuum is off for " + String.join(", ", h.leftToGrow()) + " and the gate's own vacuum is "
                    + "switched off (GATE_SELF_VACUUM=off): their dead rows stay and the database grows until "
                    + "someone vacuums them.");
        } else if (!h.autovacuumOff().isEmpty() && h.selfVacuum()) {
            String last = h.lastVacuum().map(v -> " Last: " + v.table() + ", "
                    + Words.span(Math.max(0, Duration.between(v.at(), h.at()).toMillis())) + " ago ("
                    + v.result().toLowerCase(Locale.ROOT).replace('_', ' ') + ", "
                    + String.format(Locale.ROOT, "%,d", v.deadRowsBefore()) + " dead rows, "
                    + v.took().toMillis() + " ms).").orElse("");
            notes.add("Autovacuum is off for " + String.join(", ", h.autovacuumOff())
                    + ": the gate vacuums these tables itself." + last);
        }
        h.heldBack().ifPresent(b -> notes.add("A transaction of '" + b.who() + "' (pid " + b.pid() + ", " + b.state()
                + ") open for " + Words.span(Math.max(0, Duration.between(b.since(), h.at()).toMillis()))
                + " holds back vacuum: rows dead since it began stay in the gate's tables until it ends."));
        return notes;
    }
}
