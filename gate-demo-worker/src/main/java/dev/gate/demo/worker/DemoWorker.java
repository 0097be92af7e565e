package dev.gate.demo.worker;

import dev.gate.client.CallClass;
import dev.gate.client.GateClientException;
import dev.gate.client.HttpGate;
import dev.gate.client.GatedSend;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * A worker outside the server: every {@code every}, a SCHEDULED snapshot of each store from the vendor, and for each
 * snapshot that worked a FOLLOW_UP call; every call through the gate with gate-client's {@code send}: it waits in the
 * line, sends, and reports the answer by itself (a 429 pauses the limit for everyone). Runs until stopped.
 */
public final class DemoWorker implements Runnable, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(DemoWorker.class.getName());

    private final HttpGate gate;
    private final String vendor;
    private final String limit;
    private final List<String> stores;
    private final Duration every;
    private final GatedSend sends;
    private final AtomicInteger snapshots = new AtomicInteger();
    private final AtomicInteger followUps = new AtomicInteger();
    private volatile boolean stopped;

    /** @param gateApi e.g. {@code http://localhost:8080/gate/api/v1}; @param vendor the demo vendor's base URL */
    public DemoWorker(URI gateApi, String account, String password, String vendor, String limit, List<String> stores,
                      Duration every) {
        this.gate = HttpGate.connect(gateApi, account, password);
        this.sends = gate.sending().withMaxWait(Duration.ofSeconds(60))
                .withClient(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build());
        this.vendor = vendor.replaceAll("/+$", "");
        this.limit = limit;
        this.stores = List.copyOf(stores);
        this.every = every;
    }

    @Override
    public void run() {
        while (!stopped) {
            long next = System.nanoTime() + every.toNanos();
            try {
                round();
                Thread.sleep(Math.max(0, (next - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** One round: a SCHEDULED snapshot of each store, and a FOLLOW_UP after each that worked. */
    public void round() throws InterruptedException {
        for (String store : stores) {
            try {
                if (call(CallClass.SCHEDULED, "/snapshot/" + store) == 200) {
                    snapshots.incrementAndGet();
                    if (call(CallClass.FOLLOW_UP, "/quote/" + store) == 200) {
                        followUps.incrementAndGet();
                    }
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) { // the gate's refusal, the vendor unreachable: the worker goes on
                LOG.info("worker: " + store + ": " + e.getMessage());
            }
        }
    }

    /** One vendor call through the gate (waits, sends, reports: {@link GatedSend}); answers the vendor's status. */
    private int call(CallClass callClass, String path) throws GateClientException, InterruptedException,
            java.io.IOException {
        return sends.send(limit, callClass, HttpRequest.newBuilder(URI.create(vendor + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    public int snapshots() {
        return snapshots.get();
    }

    public int followUps() {
        return followUps.get();
    }

    @Override
    public void close() {
        stopped = true;
        gate.close();
    }
}
