package dev.gate.demo.web;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The demo web app, at {@code /demo-web/}. */
@ApplicationPath("/")
public class WebApplication extends Application {
}
