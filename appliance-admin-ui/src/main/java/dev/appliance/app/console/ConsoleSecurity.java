package dev.appliance.app.console;

import dev.appliance.app.config.ApplianceProperties;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.auth.CredentialsProvider;
import dev.appliance.s3.auth.SigV4Verifier;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.configuration.WebSecurityCustomizer;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;
import org.springframework.security.web.context.HttpSessionSecurityContextRepository;
import org.springframework.security.web.context.SecurityContextHolderFilter;
import org.springframework.security.web.context.SecurityContextRepository;
import org.springframework.security.web.csrf.CookieCsrfTokenRepository;
import org.springframework.security.web.csrf.CsrfException;
import org.springframework.security.web.csrf.CsrfTokenRepository;
import org.springframework.security.web.csrf.CsrfTokenRequestAttributeHandler;
import org.springframework.security.web.util.matcher.AnyRequestMatcher;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Spring Security on the console address: deny by default, one decision ({@link AdminAuthorization}) for every
 * request. Callers prove who they are one of three ways, none of which a browser sends on its own:
 *
 * <ul>
 *   <li>a SigV4 signature by an access key ({@link SigV4AuthenticationFilter}): scripts, the CLI, AWS SDK signers;
 *   <li>an admin bearer token ({@link AdminTokenAuthenticationFilter}): automation, scoped and expiring;
 *   <li>a console session ({@link SessionController}): an HttpOnly, SameSite=Strict cookie (Secure over TLS), so every
 *       state-changing request of a session must echo the CSRF token from the {@code XSRF-TOKEN} cookie in
 *       {@code X-XSRF-TOKEN}. Requests carrying their own credentials (a signature or a bearer token) need none: a
 *       browser never adds those to a cross-site request.
 * </ul>
 *
 * <p>Before any of it, {@link ConsoleFirewall} refuses paths that read more than one way. The Prometheus scrape has a
 * chain of its own that admits its bearer token only ({@link ScrapeTokenFilter}). Every mutation is audited
 * ({@link AdminAuditFilter}), refused or not.
 */
@Configuration(proxyBeanMethods = false)
@EnableWebSecurity
class ConsoleSecurity {
    /** The session cookie's name, set by {@link ConsoleApplication}. */
    static final String SESSION_COOKIE = "APPLIANCE_SESSION";

    private static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS", "TRACE");

    @Bean
    WebSecurityCustomizer consoleFirewall() {
        return web -> web.httpFirewall(new ConsoleFirewall())
                .requestRejectedHandler(
                        (request, response, e) -> ConsoleRefusal.write(response, 400, "InvalidURI", e.getMessage()));
    }

    @Bean
    CallerNames callerNames(ApplianceStore store) {
        return new CallerNames(store);
    }

    @Bean
    LoginThrottle loginThrottle(ObjectProvider<Clock> clock) {
        return new LoginThrottle(clock.getIfAvailable(Clock::systemUTC));
    }

    @Bean
    SecurityContextRepository sessionContexts() {
        return new HttpSessionSecurityContextRepository();
    }

    @Bean
    CsrfTokenRepository csrfTokens() {
        // the console's script reads the cookie to echo it in the header: not HttpOnly, by design of the pattern
        CookieCsrfTokenRepository tokens = CookieCsrfTokenRepository.withHttpOnlyFalse();
        tokens.setCookieCustomizer(c -> c.sameSite("Strict"));
        return tokens;
    }

    /** {@code /actuator/prometheus}: the metrics bearer token and nothing else. */
    @Bean
    @Order(1)
    SecurityFilterChain scrapeChain(HttpSecurity http, ApplianceProperties properties) throws Exception {
        return http.securityMatcher(request -> ScrapeToken.PATH.equals(AdminAuthorization.routed(request)))
                .addFilterBefore(
                        new ScrapeTokenFilter(
                                new ScrapeToken(properties.metrics().token())),
                        AnonymousAuthenticationFilter.class)
                .authorizeHttpRequests(a -> a.anyRequest().authenticated())
                .csrf(AbstractHttpConfigurer::disable)
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .requestCache(AbstractHttpConfigurer::disable)
                .build();
    }

    @Bean
    AdminAuthorization adminAuthorization(
            Authorizer authorizer,
            @Qualifier("requestMappingHandlerMapping") ObjectProvider<RequestMappingHandlerMapping> routes) {
        return new AdminAuthorization(authorizer, routes::getIfAvailable);
    }

    /** Everything else on the console address. */
    @Bean
    @Order(2)
    SecurityFilterChain consoleChain(
            HttpSecurity http,
            AdminAuthorization authorization,
            CredentialsProvider credentials,
            ApplianceStore store,
            CallerNames names,
            SecurityContextRepository sessionContexts,
            CsrfTokenRepository csrfTokens,
            ObjectProvider<Clock> clock)
            throws Exception {
        SigV4Verifier verifier =
                new SigV4Verifier(credentials, S3ServerConfig.DEFAULT_REGION, clock.getIfAvailable(Clock::systemUTC));
        AdminAudit audit = new AdminAudit(store, clock.getIfAvailable(Clock::systemUTC));
        return http.securityMatcher(AnyRequestMatcher.INSTANCE)
                .securityContext(c -> c.securityContextRepository(sessionContexts))
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.IF_REQUIRED))
                .csrf(c -> c.csrfTokenRepository(csrfTokens)
                        .csrfTokenRequestHandler(new CsrfTokenRequestAttributeHandler())
                        .requireCsrfProtectionMatcher(ConsoleSecurity::needsCsrf))
                .addFilterAfter(new AdminAuditFilter(audit), SecurityContextHolderFilter.class)
                .addFilterBefore(
                        new SigV4AuthenticationFilter(verifier, names::of), AnonymousAuthenticationFilter.class)
                .addFilterBefore(
                        new AdminTokenAuthenticationFilter(secret -> tokenPrincipal(store, secret)),
                        AnonymousAuthenticationFilter.class)
                .authorizeHttpRequests(a -> a.anyRequest().access(authorization))
                .exceptionHandling(e -> e.authenticationEntryPoint((request, response, ex) -> ConsoleRefusal.write(
                                response,
                                401,
                                "Unauthenticated",
                                "Sign the request (SigV4), send an admin token (Authorization: Bearer), or log in."))
                        .accessDeniedHandler((request, response, ex) -> {
                            if (ex instanceof CsrfException) {
                                ConsoleRefusal.write(
                                        response,
                                        403,
                                        "InvalidCsrfToken",
                                        "A session's POST, PUT, PATCH or DELETE must echo the XSRF-TOKEN cookie in"
                                                + " the X-XSRF-TOKEN header.");
                            } else {
                                ConsoleRefusal.write(response, 403, "AccessDenied", "Access Denied");
                            }
                        }))
                .headers(h -> h.contentSecurityPolicy(csp -> csp.policyDirectives(
                        "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;"
                                + " frame-ancestors 'none'; form-action 'self'")))
                .httpBasic(AbstractHttpConfigurer::disable)
                .formLogin(AbstractHttpConfigurer::disable)
                .logout(AbstractHttpConfigurer::disable)
                .requestCache(AbstractHttpConfigurer::disable)
                .build();
    }

    /**
     * A state-changing request that comes with a session cookie and no credentials of its own rides on the session:
     * only such a request can another site forge. So does a login (another site could log a browser into its own
     * account). Without a cookie or credentials a request has no authority to borrow and gets 401, not a CSRF refusal.
     */
    static boolean needsCsrf(HttpServletRequest request) {
        if (SAFE_METHODS.contains(request.getMethod())) {
            return false;
        }
        if (request.getHeader("Authorization") != null || SigV4AuthenticationFilter.signed(request)) {
            return false;
        }
        return request.getRequestedSessionId() != null
                || SessionController.PATH.equals(AdminAuthorization.routed(request));
    }

    private static Optional<AdminPrincipal> tokenPrincipal(ApplianceStore store, String secret) {
        return store.identity()
                .resolveAdminToken(secret)
                .map(t -> AdminPrincipal.token(t.owner(), t.id(), t.policyArns()));
    }
}
