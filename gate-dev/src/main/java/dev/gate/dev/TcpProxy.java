package dev.gate.dev;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of PostgreSQL (or any server) that the test can cut: every open connection is closed and new
 * ones are refused, as when the server goes down or the network drops; {@link #restore()} lets connections through
 * again on the same port. Only the clients connected through it lose the server; it stays up for others. It can
 * also lose answers: the request gets through and is acted on, the connection drops before the answer arrives; or
 * delay them; or go silent ({@link #freeze()}) and then either drop its connections ({@link #thaw()}: a cut) or let
 * what it held through ({@link #resume()}: a stall).
 */
public final class TcpProxy implements AutoCloseable {

    private final String targetHost;
    private final int targetPort;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile ServerSocket listening;
    private volatile boolean frozen;
    private final AtomicInteger answersToLose = new AtomicInteger();
    private final AtomicInteger answersLost = new AtomicInteger();
    private volatile long answerDelayNanos;
    private final int port;

    public TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listening = bindBelowEphemeral();
        this.port = listening.getLocalPort();
        accept(listening);
    }

    public int port() {
        return port;
    }

    public synchronized void cut() throws IOException {
        listening.close();
        for (Socket s : open) {
            reset(s);
        }
        open.clear();
    }

    public synchronized void restore() throws IOException {
        listening = rebind(port);
        accept(listening);
    }

    // A cut resets its connections (RST, as a cable pulled from a switch is met by the next packet): a close with a
    // FIN would leave each in FIN_WAIT_2 until its peer (an idle pooled connection) closes too, and a socket in that
    // state holds the port against the restore's bind even with SO_REUSEADDR ("Address already in use", seen once).
    private static void reset(Socket s) throws IOException {
        try {
            s.setSoLinger(true, 0);
        } catch (java.net.SocketException closedAlready) {
            // nothing to reset
        }
        s.close();
    }

    /** The port again; a connection of the port's still closing is waited out for up to 5 s. */
    private static ServerSocket rebind(int port) throws IOException {
        long until = System.nanoTime() + 5_000_000_000L;
        while (true) {
            try {
                return bind(port);
            } catch (java.net.BindException stillHeld) {
                if (System.nanoTime() > until) {
                    throw stillHeld;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw stillHeld;
                }
            }
        }
    }

    /** A silent network cut: connections stay open, new ones are accepted, but no byte gets through. */
    public void freeze() {
        frozen = true;
    }

    /**
     * Ends a stall (a proxy stopped, then resumed; a switch that paused): every connection lives on, and the bytes
     * held meanwhile go through, late.
     */
    public void resume() {
        frozen = false;
    }

    /** Ends a silent cut; connections held meanwhile are dropped, as a real network would have timed them out. */
    public synchronized void thaw() throws IOException {
        for (Socket s : open) {
            reset(s);
        }
        open.clear();
        frozen = false;
    }

    /**
     * The next {@code n} answers are lost: a connection whose server starts to answer is dropped instead, after the
     * server has done what was asked (a commit whose answer never comes).
     */
    public void loseAnswers(int n) {
        answersToLose.set(n);
    }

    /** Every answer from now on reaches its client {@code delay} late, as over a slow network; zero: at once again. */
    public void delayAnswers(java.time.Duration delay) {
        answerDelayNanos = delay.toNanos();
    }

    /** How many answers were lost so far. */
    public int answersLost() {
        return answersLost.get();
    }

    @Override
    public void close() throws IOException {
        cut();
    }

    /**
     * A port below the system's ephemeral range (32768 and up on Linux): after a cut the port stays free until
     * {@link #restore()}, and an ephemeral port would be free for any outgoing connection to take meanwhile (the
     * restore then failed with "Address already in use").
     */
    private static ServerSocket bindBelowEphemeral() throws IOException {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int tries = 0; tries < 50; tries++) {
            try {
                return bind(random.nextInt(20_000, 32_000));
            } catch (java.net.BindException taken) {
                // another test's proxy or server: the next one
            }
        }
        return bind(0);
    }

    private static ServerSocket bind(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return s;
    }

    private void accept(ServerSocket server) {
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket client = server.accept();
                    Socket upstream;
                    try {
                        upstream = new Socket(targetHost, targetPort);
                    } catch (IOException refused) {
                        // the server is down (restarting, failed over): this client is refused, the next may not be
                        closeQuietly(client);
                        continue;
                    }
                    // as the driver's own connection does: without it Nagle's algorithm and delayed ACKs hold small
                    // packets back ~40 ms, and every round trip through the proxy could pay that
                    client.setTcpNoDelay(true);
                    upstream.setTcpNoDelay(true);
                    synchronized (this) {
                        // a cut while this connection was being made: it must not outlive the cut (OutageIT once
                        // saw a call written after the cut, through a connection accepted just before it)
                        if (server.isClosed()) {
                            client.close();
                            upstream.close();
                            return;
                        }
                        open.add(client);
                        open.add(upstream);
                    }
                    pump(client, upstream, false);
                    pump(upstream, client, true);
                } catch (IOException closed) {
                    return;
                }
            }
        }, "proxy-accept");
        t.setDaemon(true);
        t.start();
    }

    private void pump(Socket from, Socket to, boolean answers) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    while (frozen && !from.isClosed()) {
                        Thread.sleep(10); // bytes stuck in the cut network
                    }
                    if (from.isClosed()) {
                        return;
                    }
                    if (answers && answersToLose.getAndUpdate(left -> Math.max(0, left - 1)) > 0) {
                        answersLost.incrementAndGet();
                        return; // the finally drops both ends: the answer never reaches the client
                    }
                    long delay = answers ? answerDelayNanos : 0;
                    if (delay > 0) {
                        Thread.sleep(delay / 1_000_000, (int) (delay % 1_000_000));
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException ignored) {
                // cut, or the peer closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}
