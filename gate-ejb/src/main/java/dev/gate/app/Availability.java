package dev.gate.app;

import dev.gate.server.SlotLoop;
import dev.gate.health.CallsPaused;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.EJB;
import jakarta.ejb.Local;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

/**
 * Whether this server takes calls: they are paused while it cannot reach the gate's database (the engine's own
 * judgement, from its last round trip; it probes every 250 ms while paused). Read by the health check.
 */
@Singleton
@LocalBean
@Local(CallsPaused.class)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Availability implements CallsPaused {

    @EJB
    SlotLoop host;

    /** True while calls are turned away because the database is unavailable. */
    @Override
    public boolean callsPaused() {
        return host.engine().paused();
    }
}
