package dev.gate.web.security;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.logging.Logger;

/**
 * Says at start, as a WARNING, when the server listens beyond loopback: Basic credentials over its plain HTTP
 * listener would then cross a network in clear (README "Security": an HTTPS listener or a TLS-terminating proxy).
 * {@link BasicAuthentication} says it again, once, when credentials do arrive so.
 */
@ApplicationScoped
public class PlainHttpWarning {

    private static final Logger LOG = Logger.getLogger(PlainHttpWarning.class.getName());

    void atStartup(@Observes @Initialized(ApplicationScoped.class) Object ignored) {
        String bind = System.getProperty("jboss.bind.address", "127.0.0.1");
        if (!loopback(bind)) {
            LOG.warning("the server listens on " + bind + ", not only on loopback: HTTP Basic credentials sent to its"
                    + " plain HTTP port cross the network in clear; serve the API over HTTPS (an HTTPS listener or a"
                    + " TLS-terminating proxy, README \"Security\")");
        }
    }

    static boolean loopback(String address) {
        try {
            return address != null && InetAddress.getByName(address).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
