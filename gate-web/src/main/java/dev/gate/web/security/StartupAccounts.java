package dev.gate.web.security;

import dev.gate.api.GatePausedException;
import dev.gate.app.Accounts;
import dev.gate.app.Account;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;

/**
 * Accounts made at start-up. In development mode only ({@code gate.dev-mode=true}, env {@code GATE_DEV_MODE}; the
 * run command sets it when it starts its own embedded database): {@code web}, {@code worker}, {@code batch} (caller)
 * and {@code ops} (operator and viewer), each with its name as password. In any mode, {@code gate.operator=name:password}
 * (env {@code GATE_OPERATOR}) creates a first operator when no account of that name exists; further accounts come
 * from the operator endpoint. Outside development mode the gate does not start while any account's password is its
 * name (a development account left in a real database), and says which.
 */
@ApplicationScoped
public class StartupAccounts {

    private static final Logger LOG = Logger.getLogger(StartupAccounts.class.getName());

    @EJB
    Accounts accounts;

    @Inject
    Passwords passwords;

    void atStartup(@Observes @Initialized(ApplicationScoped.class) Object ignored) throws GatePausedException {
        var config = ConfigProvider.getConfig();
        if (config.getOptionalValue("gate.dev-mode", Boolean.class).orElse(false)) {
            for (String caller : List.of("web", "worker", "batch")) {
                add(caller, caller, Set.of(Roles.CALLER));
            }
            add("ops", "ops", new LinkedHashSet<>(List.of(Roles.OPERATOR, Roles.VIEWER)));
            LOG.warning("development mode: the accounts web, worker, batch (caller) and ops (operator, viewer) exist,"
                    + " each with its name as password. Never use development mode in production.");
        } else {
            refuseNameAsPassword();
        }
        var operator = config.getOptionalValue("gate.operator", String.class);
        if (operator.isPresent()) {
            String spec = operator.get();
            int colon = spec.indexOf(':');
            if (colon <= 0 || colon == spec.length() - 1) {
                throw new IllegalArgumentException("gate.operator must be name:password");
            }
            String name = spec.substring(0, colon);
            if (add(name, spec.substring(colon + 1), new LinkedHashSet<>(List.of(Roles.OPERATOR, Roles.VIEWER)))) {
                LOG.info("created the operator account " + name + " from gate.operator");
            }
        }
    }

    /** Outside development mode: no account may have its name as password. */
    void refuseNameAsPassword() throws GatePausedException {
        List<String> weak = accounts.all().stream()
                .filter(a -> passwords.matches(a.name(), a.passwordHash())).map(Account::name).toList();
        if (!weak.isEmpty()) {
            String why = "the gate does not start: the password of the account(s) " + String.join(", ", weak)
                    + " is its name (development accounts in a real database). Start once with GATE_DEV_MODE=true"
                    + " and change them (PUT /gate/api/v1/accounts/{name}) or remove them, then restart without it.";
            LOG.severe(why);
            throw new IllegalStateException(why);
        }
    }

    private boolean add(String name, String password, Set<String> roles) throws GatePausedException {
        return accounts.addIfAbsent(new Account(name, passwords.hash(password), roles));
    }
}
