package dev.gate.ejb;

import dev.gate.client.GateException;
import dev.gate.store.LimitStatus;
import jakarta.ejb.EJB;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

import java.util.List;

/** What operators see, for the status page and the API (same EAR only). */
@Stateless
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class GateStatus {

    @EJB
    SlotLoop slotLoop;

    public List<LimitStatus> limits() throws GateException {
        return slotLoop.engine().status();
    }
}
