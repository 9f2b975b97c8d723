package dev.appliance.s3.testing;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Installs {@link NettyLeaks} when the JUnit launcher session opens, before any test class is discovered or loaded
 * (registered in {@code META-INF/services/org.junit.platform.launcher.LauncherSessionListener}).
 */
public final class NettyLeakSessionListener implements LauncherSessionListener {
    @Override
    public void launcherSessionOpened(LauncherSession session) {
        NettyLeaks.install();
    }
}
