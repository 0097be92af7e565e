package dev.gate.web.status;

import dev.gate.web.problem.Problem;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/**
 * The container's own errors (401, 429 or 503 before any resource runs, 403, 404 outside the API) as problem+json; a
 * problem decided by the authentication mechanism is written as it is.
 */
@WebServlet("/problem")
public class ProblemServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = code instanceof Integer i ? i : response.getStatus();
        if (request.getAttribute(Problem.REQUEST_ATTRIBUTE) instanceof Problem decided) {
            if (request.getAttribute(Problem.RETRY_AFTER_ATTRIBUTE) instanceof Long seconds) {
                response.setHeader("Retry-After", String.valueOf(seconds));
            }
            write(response, decided);
            return;
        }
        String title = switch (status) {
            case 401 -> "Authentication required";
            case 403 -> "Forbidden";
            case 404 -> "Not found";
            default -> "HTTP " + status;
        };
        String detail = switch (status) {
            case 401 -> "credentials: this needs HTTP Basic credentials of a gate account";
            case 403 -> "role: this account's roles do not allow it";
            default -> String.valueOf(request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI));
        };
        write(response, Problem.of(status, "http-" + status, title, detail));
    }

    private static void write(HttpServletResponse response, Problem problem) throws IOException {
        response.setStatus(problem.status());
        if (problem.status() == 503) {
            response.setHeader("Retry-After", "1"); // calls are paused: ask again shortly
        }
        response.setContentType(Problem.MEDIA_TYPE);
        response.setCharacterEncoding("UTF-8");
        response.getWriter().write(problem.json().toString());
    }
}
