package dev.gate.web.status;

import dev.gate.app.LimitAdmin;
import dev.gate.app.Operations;
import dev.gate.app.Backfills;
import dev.gate.api.GateException;
import dev.gate.api.GatePausedException;
import dev.gate.api.LimitStatus;
import dev.gate.api.OperatorAction;
import dev.gate.app.LineDefaults;
import jakarta.ejb.EJB;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Named;

import java.io.Serializable;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;

/**
 * Backs status.xhtml: reads the line on every render (the page asks every 2 s), busiest limit first. While the
 * database is unavailable it keeps the last panels it read and says so: calls are paused.
 */
@Named
@ViewScoped
public class StatusPage implements Serializable {

    private static final long serialVersionUID = 1L;

    /** A class whose oldest call has waited this long is marked as starving (gate.starving-after, e.g. 10m). */
    static final Duration STARVING_AFTER = LineDefaults.starvingAfter();

    @EJB
    LimitAdmin admin;

    @EJB
    Operations operations;

    @EJB
    Backfills backfills;

    private List<Panel> panels = List.of();
    private List<OperatorAction> actions = List.of();
    private List<JobRow> jobs = List.of();
    private String unavailable;
    private boolean read;
    private List<String> tableNotes = List.of();

    /** Reads the line (once per request). */
    public void load() {
        // the tables' last check, held by the engine: no database read
        tableNotes = operations.tables().map(TableNotes::of).orElse(List.of());
        try {
            panels = admin.all().stream()
                    .sorted(Comparator.comparingLong(LimitStatus::getWaitingTotal).reversed()
                            .thenComparing(LimitStatus::getName))
                    .map(l -> new Panel(l, STARVING_AFTER)).toList();
            actions = operations.recent();
            jobs = backfills.list().stream().map(JobRow::new).toList();
            unavailable = null;
        } catch (GatePausedException e) {
            unavailable = e.getMessage(); // the last panels stay, marked as such
        } catch (GateException e) {
            unavailable = e.getMessage();
        } catch (jakarta.ejb.EJBException e) {
            unavailable = "the jobs cannot be read: " + e.getMessage(); // the job repository is in the database
        }
        read = true;
    }

    public List<Panel> getPanels() {
        return panels;
    }

    /** The backfill jobs, newest first. */
    public List<JobRow> getJobs() {
        return jobs;
    }

    public List<OperatorAction> getActions() {
        return actions;
    }

    /** What the page says of the gate's tables (vacuum), if anything. */
    public List<String> getTableNotes() {
        return tableNotes;
    }

    /** Why the line cannot be read now (calls are paused); null while it can. */
    public String getUnavailable() {
        return unavailable;
    }

    public boolean isRead() {
        return read;
    }

    public String getStarvingAfter() {
        return Words.span(STARVING_AFTER.toMillis());
    }
}
