package dev.gate.engine;

import java.net.InetAddress;
import java.util.UUID;

/** A gate instance's name, the owner of the calls its callers make: host, process, and a random part. */
public final class InstanceName {

    private InstanceName() {
    }

    public static String next() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "unknown-host";
        }
        String name = host + "/" + ProcessHandle.current().pid() + "/" + UUID.randomUUID().toString().substring(0, 8);
        return name.length() <= 128 ? name : name.substring(name.length() - 128);
    }
}
