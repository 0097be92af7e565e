package dev.gate.web.status;

import dev.gate.web.api.Problem;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/** The container's own errors (401 before any resource runs, 403, 404 outside the API) as problem+json. */
@WebServlet("/problem")
public class ProblemServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = code instanceof Integer i ? i : response.getStatus();
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
        response.setStatus(status);
        response.setContentType(Problem.MEDIA_TYPE);
        response.setCharacterEncoding("UTF-8");
        response.getWriter().write(Problem.of(status, "http-" + status, title, detail).json().toString());
    }
}
