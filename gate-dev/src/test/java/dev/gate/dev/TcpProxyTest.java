package dev.gate.dev;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The proxy stands in for a network: a server that is down for a while must not take the proxy down with it. */
class TcpProxyTest {

    @Test
    void aClientRefusedWhileTheServerIsDownDoesNotStopTheProxy() throws IOException {
        int serverPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            serverPort = probe.getLocalPort(); // free again: nothing listens there yet
        }
        try (TcpProxy proxy = new TcpProxy("127.0.0.1", serverPort)) {
            try (Socket refused = new Socket("127.0.0.1", proxy.port())) {
                refused.setSoTimeout(5_000);
                assertEquals(-1, refused.getInputStream().read(), "closed at once: the server is down");
            }
            // the server comes back (a restarted node) on the same port: the proxy lets the next client through
            try (ServerSocket server = new ServerSocket(serverPort, 1, InetAddress.getLoopbackAddress())) {
                server.setSoTimeout(5_000);
                try (Socket client = new Socket("127.0.0.1", proxy.port()); Socket accepted = server.accept()) {
                accepted.getOutputStream().write(42);
                    InputStream in = client.getInputStream();
                    assertEquals(42, in.read());
                }
            }
        }
    }
}
