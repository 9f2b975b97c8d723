package dev.appliance.installer.smart;

/** Where SMART reports come from: {@link Smartctl} on a host, recorded JSON in tests. */
@FunctionalInterface
public interface SmartSource {
    /**
     * The report for one disk.
     *
     * @param device the whole disk's device node ({@code /dev/sda}, {@code /dev/nvme0n1})
     */
    SmartReading read(String device);
}
