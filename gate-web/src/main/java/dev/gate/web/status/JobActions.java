package dev.gate.web.status;

import dev.gate.app.Backfills;
import dev.gate.app.JobRefusedException;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.faces.application.FacesMessage;
import jakarta.faces.context.FacesContext;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An operator's buttons for the backfill jobs on the status page: start one, stop a running one, restart a stopped
 * or failed one from its last checkpoint. The same use cases as the HTTP API ({@link Backfills}).
 */
@Named
@RequestScoped
public class JobActions {

    @EJB
    Backfills jobs;

    @Inject
    FacesContext faces;

    private String limit;
    private String symbols;
    private String from;
    private String to;
    private String vendorUrl;
    private Integer checkpointEvery = 10;

    public void start() {
        Map<String, String> p = new LinkedHashMap<>();
        put(p, "limit", limit);
        put(p, "symbols", symbols);
        put(p, "from", from);
        put(p, "to", to);
        put(p, "vendorUrl", vendorUrl);
        put(p, "checkpointEvery", checkpointEvery == null ? null : checkpointEvery.toString());
        act(() -> "job " + jobs.start(p, actor()).executionId() + " started");
    }

    public void stop(long executionId) {
        act(() -> "job " + jobs.stop(executionId, actor()).executionId() + " asked to stop");
    }

    public void restart(long executionId) {
        act(() -> "job " + executionId + " restarted as " + jobs.restart(executionId, actor()).executionId());
    }

    private interface Action {
        String run() throws JobRefusedException;
    }

    private void act(Action action) {
        if (!faces.getExternalContext().isUserInRole("operator")) {
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR, "Only an operator may do that.", null));
            return;
        }
        try {
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_INFO, action.run() + ".", null));
        } catch (JobRefusedException e) {
            faces.addMessage(null, new FacesMessage(FacesMessage.SEVERITY_ERROR, e.getMessage(), null));
        }
    }

    private static void put(Map<String, String> p, String key, String value) {
        if (value != null && !value.isBlank()) {
            p.put(key, value.trim());
        }
    }

    private String actor() {
        return faces.getExternalContext().getRemoteUser();
    }

    public String getLimit() {
        return limit;
    }

    public void setLimit(String limit) {
        this.limit = limit;
    }

    public String getSymbols() {
        return symbols;
    }

    public void setSymbols(String symbols) {
        this.symbols = symbols;
    }

    public String getFrom() {
        return from;
    }

    public void setFrom(String from) {
        this.from = from;
    }

    public String getTo() {
        return to;
    }

    public void setTo(String to) {
        this.to = to;
    }

    public String getVendorUrl() {
        return vendorUrl;
    }

    public void setVendorUrl(String vendorUrl) {
        this.vendorUrl = vendorUrl;
    }

    public Integer getCheckpointEvery() {
        return checkpointEvery;
    }

    public void setCheckpointEvery(Integer checkpointEvery) {
        this.checkpointEvery = checkpointEvery;
    }
}
