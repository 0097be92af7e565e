package dev.gate.demo.vendor;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The demo vendor's API, at {@code /demo-vendor/}. */
@ApplicationPath("/")
public class VendorApplication extends Application {
}
