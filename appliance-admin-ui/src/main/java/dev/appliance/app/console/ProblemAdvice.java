package dev.appliance.app.console;

import jakarta.servlet.http.HttpServletResponse;
import org.springframework.core.MethodParameter;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.http.server.ServletServerHttpResponse;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/**
 * Every admin API error is an RFC 9457 problem: what a controller answers as a {@link Problem} is completed from the
 * status and sent as {@code application/problem+json}; the errors Spring MVC raises before a controller runs (a
 * missing or mistyped parameter, an unreadable body, a wrong method or media type, no such route) are answered as
 * problems naming the field, rather than Boot's error page. A controller's own handlers come first.
 */
@RestControllerAdvice
class ProblemAdvice implements ResponseBodyAdvice<Object> {

    @Override
    public boolean supports(MethodParameter returnType, Class<? extends HttpMessageConverter<?>> converterType) {
        return true;
    }

    @Override
    public Object beforeBodyWrite(
            Object body,
            MethodParameter returnType,
            MediaType contentType,
            Class<? extends HttpMessageConverter<?>> converterType,
            ServerHttpRequest request,
            ServerHttpResponse response) {
        if (!(body instanceof Problem problem)) {
            return body;
        }
        int status = response instanceof ServletServerHttpResponse servlet
                ? servlet.getServletResponse().getStatus()
                : HttpServletResponse.SC_BAD_REQUEST;
        response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        return problem.complete(status);
    }

    @ExceptionHandler(BadField.class)
    ResponseEntity<Problem> badField(BadField e) {
        return ResponseEntity.status(e.status).body(Problem.of(e.status, e.code(), e.field, e.getMessage()));
    }

    @ExceptionHandler(MissingServletRequestParameterException.class)
    ResponseEntity<Problem> missingParameter(MissingServletRequestParameterException e) {
        return problem(
                HttpStatus.BAD_REQUEST, "InvalidInput", e.getParameterName(), e.getParameterName() + " is required");
    }

    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    ResponseEntity<Problem> mistyped(MethodArgumentTypeMismatchException e) {
        String type =
                e.getRequiredType() == null ? "value" : e.getRequiredType().getSimpleName();
        return problem(
                HttpStatus.BAD_REQUEST,
                "InvalidInput",
                e.getName(),
                e.getName() + ": '" + e.getValue() + "' is not a valid " + type);
    }

    @ExceptionHandler(MethodArgumentNotValidException.class)
    ResponseEntity<Problem> invalid(MethodArgumentNotValidException e) {
        var error = e.getBindingResult().getFieldError();
        String field = error == null ? null : error.getField();
        String detail = error == null ? "the request body is not valid" : field + ": " + error.getDefaultMessage();
        return problem(HttpStatus.BAD_REQUEST, "InvalidInput", field, detail);
    }

    @ExceptionHandler(HttpMessageNotReadableException.class)
    ResponseEntity<Problem> unreadable(HttpMessageNotReadableException e) {
        return ResponseEntity.badRequest().body(Problem.unreadableBody(e));
    }

    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    ResponseEntity<Problem> method(HttpRequestMethodNotSupportedException e) {
        return problem(
                HttpStatus.METHOD_NOT_ALLOWED,
                "MethodNotAllowed",
                null,
                e.getMethod() + " is not supported here; supported: " + e.getSupportedHttpMethods());
    }

    @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
    ResponseEntity<Problem> mediaType(HttpMediaTypeNotSupportedException e) {
        return problem(
                HttpStatus.UNSUPPORTED_MEDIA_TYPE,
                "UnsupportedMediaType",
                null,
                "send the body as application/json (was " + e.getContentType() + ")");
    }

    @ExceptionHandler(NoResourceFoundException.class)
    ResponseEntity<Problem> noRoute(NoResourceFoundException e) {
        return problem(HttpStatus.NOT_FOUND, "NoSuchRoute", null, "no such admin API route: /" + e.getResourcePath());
    }

    private static ResponseEntity<Problem> problem(HttpStatus status, String code, String field, String detail) {
        return ResponseEntity.status(status).body(Problem.of(status.value(), code, field, detail));
    }
}
