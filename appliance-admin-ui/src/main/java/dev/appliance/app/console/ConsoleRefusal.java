package dev.appliance.app.console;

import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** Writes a refusal from the security filters, before any controller: the same problem shape controllers answer. */
final class ConsoleRefusal {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ConsoleRefusal() {}

    static void write(HttpServletResponse response, int status, String code, String message) throws IOException {
        if (response.isCommitted()) {
            return;
        }
        response.resetBuffer();
        response.setStatus(status);
        response.setContentType("application/problem+json");
        JSON.writeValue(response.getOutputStream(), Problem.of(status, code, null, message));
    }
}
