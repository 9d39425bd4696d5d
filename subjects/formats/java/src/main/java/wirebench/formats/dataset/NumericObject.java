package wirebench.formats.dataset;

import java.util.List;
import java.util.Objects;

/** One element of the {@code numeric} dataset: mostly numbers. */
public final class NumericObject {
    public String id;
    public long index;
    public double numbr;
    public List<Coordinate> coordinates;

    public NumericObject() {}

    public NumericObject(String id, long index, double numbr, List<Coordinate> coordinates) {
        this.id = id;
        this.index = index;
        this.numbr = numbr;
        this.coordinates = coordinates;
    }

    /** Doubles compare by their bits ({@link Double#compare}), so -0.0 and 0.0 differ. */
    @Override
    public boolean equals(Object o) {
        return o instanceof NumericObject n
                && Objects.equals(id, n.id)
                && index == n.index
                && Double.compare(numbr, n.numbr) == 0
                && Objects.equals(coordinates, n.coordinates);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, index, numbr, coordinates);
    }

    @Override
    public String toString() {
        return "NumericObject{id=" + id + ", index=" + index + ", numbr=" + numbr + ", coordinates=" + coordinates + "}";
    }
}
