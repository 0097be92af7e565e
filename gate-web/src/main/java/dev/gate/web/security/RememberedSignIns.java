package dev.gate.web.security;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Confirms the remembered sign-ins off the request path ({@link AccountStore#confirmRemembered}) every
 * {@link AccountStore#CONFIRM_EVERY} on the server's scheduler, so that a steady caller's requests never read its
 * account, nor derive its password, when its minute runs out.
 */
@ApplicationScoped
public class RememberedSignIns {

    private static final Logger LOG = Logger.getLogger(RememberedSignIns.class.getName());

    @Inject
    AccountStore store;

    @Resource
    ManagedScheduledExecutorService scheduler;

    private ScheduledFuture<?> confirming;

    void atStartup(@Observes @Initialized(ApplicationScoped.class) Object ignored) {
        long every = AccountStore.CONFIRM_EVERY.toMillis();
        confirming = scheduler.scheduleWithFixedDelay(this::confirm, every, every, TimeUnit.MILLISECONDS);
    }

    private void confirm() {
        try {
            store.confirmRemembered();
        } catch (RuntimeException e) { // the next round tries again; a thrown task would never run again
            LOG.log(Level.WARNING, "remembered sign-ins not confirmed: " + e.getMessage(), e);
        }
    }

    @PreDestroy
    void stop() {
        if (confirming != null) {
            confirming.cancel(false);
        }
    }
}
