package dev.appliance.app;

/** Command-line entry point of the appliance process. */
public final class ApplianceMain {
    private ApplianceMain() {}

    public static void main(String[] args) {
        System.out.println("appliance");
    }
}
