package wirebench.formats.dataset;

import java.util.Objects;

/** A point in time and space of a {@link NumericObject}. */
public final class Coordinate {
    /** Milliseconds since the Unix epoch. */
    public long timestamp;
    public double latitude;
    public double longitude;

    public Coordinate() {}

    public Coordinate(long timestamp, double latitude, double longitude) {
        this.timestamp = timestamp;
        this.latitude = latitude;
        this.longitude = longitude;
    }

    /** Doubles compare by their bits ({@link Double#compare}), so -0.0 and 0.0 differ. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Coordinate c
                && timestamp == c.timestamp
                && Double.compare(latitude, c.latitude) == 0
                && Double.compare(longitude, c.longitude) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(timestamp, latitude, longitude);
    }

    @Override
    public String toString() {
        return "Coordinate{timestamp=" + timestamp + ", latitude=" + latitude + ", longitude=" + longitude + "}";
    }
}
