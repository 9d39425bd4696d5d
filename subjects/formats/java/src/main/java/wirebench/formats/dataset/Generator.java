package wirebench.formats.dataset;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Generates the datasets by the rules of {@code datasets.json}, drawing in the order it fixes:
 * the {@code let} bindings in order, then the fields in order, calls within a rule left to right.
 * Java evaluates arguments and statements left to right, so the code below reads in draw order.
 */
public final class Generator {
    private final SplitMix64 rng;
    private final Spec spec;

    private Generator(long seed, Spec spec) {
        this.rng = new SplitMix64(seed);
        this.spec = spec;
    }

    /** The dataset with the count and seed of {@code datasets.json}. */
    public static Dataset generate(DatasetKind kind) {
        return generate(kind, kind.count());
    }

    /**
     * The first {@code count} objects of the dataset (the objects {@link #generate(DatasetKind)}
     * starts with; {@code users} also gets {@code total_count = count}).
     */
    public static Dataset generate(DatasetKind kind, int count) {
        Spec spec = Spec.get();
        Generator g = new Generator(spec.dataset(kind).seed(), spec);
        return switch (kind) {
            case USERS -> {
                List<User> users = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    users.add(g.user(i));
                }
                yield new Dataset.Users(new UsersDocument(users, new Metadata("1.0", "2025-01-01T00:00:00Z", count)));
            }
            case NUMERIC -> {
                List<NumericObject> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(g.numeric(i));
                }
                yield new Dataset.Numeric(items);
            }
            case DUMMY -> {
                List<DummyObject> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(g.dummy(i));
                }
                yield new Dataset.Dummy(items);
            }
        };
    }

    private User user(int i) {
        String first = rng.pick(spec.words("first_names"));
        String last = rng.pick(spec.words("last_names"));
        long id = i + 1L;
        String email = lower(first) + '.' + lower(last) + id + '@' + rng.pick(spec.words("email_domains"));
        int age = (int) rng.integer(18, 80);
        boolean active = rng.bool();
        List<String> tags = new ArrayList<>(3);
        for (int k = 0; k < 3; k++) {
            tags.add(rng.pick(spec.words("user_tags")));
        }
        return new User(id, first + ' ' + last, email, age, active, tags);
    }

    private NumericObject numeric(int i) {
        String id = rng.objectId();
        double numbr = rng.fixed(-1_000_000_000L, 1_000_000_000L, 1000);
        List<Coordinate> coordinates = new ArrayList<>(10);
        for (int k = 0; k < 10; k++) {
            long timestamp = 1_700_000_000_000L + rng.integer(0, 31_535_999_999L);
            double latitude = rng.fixed(-90_000_000, 90_000_000, 1_000_000);
            double longitude = rng.fixed(-180_000_000, 180_000_000, 1_000_000);
            coordinates.add(new Coordinate(timestamp, latitude, longitude));
        }
        return new NumericObject(id, i, numbr, coordinates);
    }

    private DummyObject dummy(int i) {
        String first = rng.pick(spec.words("first_names"));
        String last = rng.pick(spec.words("last_names"));
        String company = rng.pick(spec.words("companies"));
        DummyObject d = new DummyObject();
        d._id = rng.objectId();
        d.index = i;
        d.guid = rng.guid();
        d.isActive = rng.bool();
        d.balance = dollars(rng.integer(100_000, 399_999));
        d.picture = "http://placehold.it/32x32";
        d.age = (int) rng.integer(20, 40);
        d.eyeColor = rng.pick(spec.words("eye_colors"));
        d.name = first + ' ' + last;
        d.gender = rng.pick(spec.words("genders"));
        d.company = company;
        d.email = lower(first) + '.' + lower(last) + '@' + lower(company) + ".com";
        long area = rng.integer(200, 999);
        long exchange = rng.integer(200, 999);
        long line = rng.integer(0, 9999);
        d.phone = "+1 (" + area + ") " + exchange + '-' + pad(line, 4);
        long number = rng.integer(100, 9999);
        String street = rng.pick(spec.words("street_names"));
        String streetType = rng.pick(spec.words("street_types"));
        String city = rng.pick(spec.words("cities"));
        String state = rng.pick(spec.words("states"));
        long zip = rng.integer(0, 99_999);
        d.address = number + " " + street + ' ' + streetType + ", " + city + ", " + state + ", " + pad(zip, 5);
        d.about = paragraph(spec.words("lorem"), 500);
        long y = rng.integer(2014, 2023);
        long mo = rng.integer(1, 12);
        long day = rng.integer(1, 28);
        long h = rng.integer(0, 23);
        long mi = rng.integer(0, 59);
        long s = rng.integer(0, 59);
        long tz = rng.integer(-12, 12);
        d.registered = pad(y, 4) + '-' + pad(mo, 2) + '-' + pad(day, 2) + 'T' + pad(h, 2) + ':' + pad(mi, 2) + ':'
                + pad(s, 2) + ' ' + (tz < 0 ? '-' : '+') + pad(Math.abs(tz), 2) + ":00";
        d.latitude = rng.fixed(-90_000_000, 90_000_000, 1_000_000);
        d.longitude = rng.fixed(-180_000_000, 180_000_000, 1_000_000);
        d.tags = new ArrayList<>(7);
        for (int k = 0; k < 7; k++) {
            d.tags.add(rng.pick(spec.words("lorem")));
        }
        d.friends = new ArrayList<>(3);
        for (int k = 0; k < 3; k++) {
            String friendFirst = rng.pick(spec.words("first_names"));
            String friendLast = rng.pick(spec.words("last_names"));
            d.friends.add(new DummyFriend(k, friendFirst + ' ' + friendLast));
        }
        d.greeting = "Hello, " + first + "! You have " + rng.integer(1, 10) + " unread messages.";
        d.favoriteFruit = rng.pick(spec.words("fruits"));
        return d;
    }

    /** {@code paragraph(list, min_len)}: words until at least {@code minLength} characters, capitalised, with a full stop. */
    String paragraph(List<String> words, int minLength) {
        StringBuilder s = new StringBuilder();
        while (s.length() < minLength) {
            if (s.length() > 0) {
                s.append(' ');
            }
            s.append(rng.pick(words));
        }
        s.setCharAt(0, Character.toUpperCase(s.charAt(0)));
        return s.append('.').toString();
    }

    /** {@code lower(s)}: ASCII A-Z to a-z (every string here is ASCII). */
    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }

    /** {@code pad(n, w)}: the non-negative {@code n} in decimal, zero-padded on the left to {@code w} digits. */
    static String pad(long n, int width) {
        String digits = Long.toString(n);
        return digits.length() >= width ? digits : "0".repeat(width - digits.length()) + digits;
    }

    /** {@code dollars(cents)}: {@code $1,234.56}. */
    static String dollars(long cents) {
        String digits = Long.toString(cents / 100);
        StringBuilder grouped = new StringBuilder("$");
        for (int n = 0; n < digits.length(); n++) {
            if (n > 0 && (digits.length() - n) % 3 == 0) {
                grouped.append(',');
            }
            grouped.append(digits.charAt(n));
        }
        return grouped.append('.').append(pad(cents % 100, 2)).toString();
    }

    /** For the tests: a generator over a given seed, to exercise the helpers. */
    static Generator forTest(long seed) {
        return new Generator(seed, Spec.get());
    }
}
