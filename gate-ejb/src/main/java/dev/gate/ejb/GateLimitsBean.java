package dev.gate.ejb;

import dev.gate.app.LimitAdmin;
import dev.gate.api.GateException;
import dev.gate.api.GateLimits;
import dev.gate.api.LimitSpec;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Remote;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

/**
 * The remote {@link GateLimits} view: an operator's limit declarations, checked as over HTTP ({@link LimitAdmin}).
 * Only a caller in the {@code operator} role may declare: an application beside the gate calls it from a component
 * that runs as operator ({@code @RunAs("operator")}); anyone else gets {@code EJBAccessException}, as the HTTP API
 * answers 403.
 */
@Singleton
@DeclareRoles(GateLimitsBean.OPERATOR)
@RolesAllowed(GateLimitsBean.OPERATOR)
@Remote(GateLimits.class)
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class GateLimitsBean implements GateLimits {

    /** The role that may declare limits (the HTTP API's {@code operator}). */
    static final String OPERATOR = "operator";

    @EJB
    LimitAdmin limits;

    @Resource
    SessionContext context;

    @Override
    public boolean put(String name, LimitSpec spec) throws GateException {
        // recorded as the remote caller's (its principal; "anonymous" when the EJB connector does not authenticate)
        return limits.put(name, spec, "remote:" + context.getCallerPrincipal().getName());
    }
}
