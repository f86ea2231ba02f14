"""A ceiling for issue 10: gradient-boosted trees on what a quote knows.

Fits sklearn's HistGradientBoostingClassifier on the fitting months of the shared BTS history and
scores the held-out month, per event, with the definitions of src/risk/evaluate.ts:
  cancelled  = the leg was cancelled (all legs);
  delay_60   = operated (neither cancelled nor diverted) and arrival delay >= 60 min (all legs);
  delay_180  = the same at 180 min.
AUC, and log-loss gain against the fitting months' global average of the event.

Features: only what a quote knows (airline, flight number, origin, destination, scheduled local
departure time, day of week, distance; day of month unless `--drop dom`, which the documented run
uses) and what the fitting months' schedule and outcomes give for those keys: target encodings
(rates of cancelled / >= 15 / >= 60 / >= 180 and legs, smoothed) per key, out of fold by date on the
fitting months; schedule volumes (departures per day at the origin in the hour, arrivals per day at
the destination in the arrival hour, the airline's share of the origin), block time against the
route's median, the flight number's legs per day and position in its day. No month feature (the
held-out month is outside the fitting months' range). The number of trees is chosen on a fifth of
the fitting months' dates, held out.

Usage (one core, low priority):
  OMP_NUM_THREADS=1 nice -n 10 /usr/bin/python3 scratch/ceiling/ceiling.py SPLIT [SPLIT...] [--drop GROUP,...]
  SPLIT: janfeb-mar | jan-feb | feb-mar
"""

import os
import sys
import time

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import roc_auc_score

DATA = os.environ.get("FLIGHT_HISTORY", "/work/shared/data/flight-history")
FILE = DATA + "/On_Time_Reporting_Carrier_On_Time_Performance_2008_{}.csv.gz"
SPLITS = {"janfeb-mar": ([1, 2], 3), "jan-feb": ([1], 2), "feb-mar": ([2], 3)}
EVENTS = ["cancelled", "delay_60", "delay_180"]
TE_TARGETS = ["cancelled", "delay_15", "delay_60", "delay_180"]
TE_KEYS = {
    "flight": ["airline", "fn", "origin", "dest"],
    "airline_route": ["airline", "origin", "dest"],
    "route": ["origin", "dest"],
    "airline_origin": ["airline", "origin"],
    "airline_dest": ["airline", "dest"],
    "origin": ["origin"],
    "dest": ["dest"],
    "airline": ["airline"],
    "origin_hour": ["origin", "hour"],
    "airline_hour": ["airline", "hour"],
    "airline_origin_hour": ["airline", "origin", "hour"],
    "airline_dow": ["airline", "dow"],
    "origin_dow": ["origin", "dow"],
}
SMOOTH = 20.0  # legs of the global rate in each encoded rate
FOLDS = 5  # out-of-fold target encoding on the fitting months, folds by flight date


def load(months):
    cols = [
        "Month", "DayofMonth", "DayOfWeek", "FlightDate", "Reporting_Airline",
        "Flight_Number_Reporting_Airline", "Origin", "Dest", "CRSDepTime", "CRSArrTime",
        "ArrDelay", "Cancelled", "Diverted", "Distance",
    ]
    d = pd.concat([pd.read_csv(FILE.format(m), usecols=cols) for m in months], ignore_index=True)
    out = pd.DataFrame({
        "month": d.Month.astype(np.int8),
        "dom": d.DayofMonth.astype(np.int8),
        "dow": d.DayOfWeek.astype(np.int8),
        "date": d.FlightDate.astype("category"),
        "airline": d.Reporting_Airline,
        "fn": d.Flight_Number_Reporting_Airline.astype(np.int32),
        "origin": d.Origin,
        "dest": d.Dest,
        "distance": d.Distance.astype(np.float32),
    })
    dep = d.CRSDepTime % 2400
    arr = d.CRSArrTime % 2400
    out["dep_min"] = ((dep // 100) * 60 + dep % 100).astype(np.int16)
    out["hour"] = (dep // 100).astype(np.int8)
    arr_min = (arr // 100) * 60 + arr % 100
    out["block"] = ((arr_min - out.dep_min) % 1440).astype(np.int16)  # local clock difference
    cancelled = d.Cancelled > 0
    operated = ~cancelled & ~(d.Diverted > 0)
    out["cancelled"] = cancelled.astype(np.int8)
    for t in (15, 60, 180):
        out[f"delay_{t}"] = (operated & (d.ArrDelay >= t)).astype(np.int8)
    return out


def keycode(df, cols):
    if len(cols) == 1:
        return pd.factorize(df[cols[0]])[0]
    return df.groupby(cols, sort=False, observed=True).ngroup().to_numpy()


def add_features(train, test):
    """Target encodings and schedule features from `train` only; returns feature frames."""
    n_tr = len(train)
    both = pd.concat([train, test], ignore_index=True)
    is_tr = np.arange(len(both)) < n_tr
    dates = train.date.astype(str).unique()
    rng = np.random.default_rng(10)
    fold_of_date = dict(zip(dates, rng.integers(0, FOLDS, len(dates))))
    fold = np.full(len(both), -1, dtype=np.int8)
    fold[:n_tr] = train.date.astype(str).map(fold_of_date).to_numpy()
    feats = {}
    prior = {t: train[t].mean() for t in TE_TARGETS}
    for name, cols in TE_KEYS.items():
        code = keycode(both, cols)
        k = code.max() + 1
        legs = np.bincount(code[is_tr], minlength=k).astype(np.float64)
        legs_f = np.zeros((FOLDS, k))
        for f in range(FOLDS):
            legs_f[f] = np.bincount(code[fold == f], minlength=k)
        # legs the encoding saw: out of fold for training rows, all for held-out rows
        n = legs[code].copy()
        n[:n_tr] -= legs_f[fold[:n_tr], code[:n_tr]]
        feats[f"{name}_legs"] = np.log1p(n).astype(np.float32)
        for t in TE_TARGETS:
            y = both[t].to_numpy(dtype=np.float64)
            s = np.bincount(code[is_tr], weights=y[is_tr], minlength=k)
            s_f = np.zeros((FOLDS, k))
            for f in range(FOLDS):
                m = fold == f
                s_f[f] = np.bincount(code[m], weights=y[m], minlength=k)
            a = s[code].copy()
            a[:n_tr] -= s_f[fold[:n_tr], code[:n_tr]]
            feats[f"{name}_{t}"] = ((a + SMOOTH * prior[t]) / (n + SMOOTH) / prior[t]).astype(np.float32)
    # Schedule features from the fitting months' schedule (volumes per day of data).
    days = train.date.nunique()
    g = lambda cols: train.groupby(cols, observed=True).size() / days  # noqa: E731
    look = lambda s, cols: both[cols].merge(s.rename("v").reset_index(), on=cols, how="left")["v"].to_numpy()  # noqa: E731
    feats["sched_origin_hour_deps"] = look(g(["origin", "hour"]), ["origin", "hour"])
    feats["sched_origin_deps"] = look(g(["origin"]), ["origin"])
    feats["sched_airline_origin_deps"] = look(g(["airline", "origin"]), ["airline", "origin"])
    feats["sched_airline_share_origin"] = feats["sched_airline_origin_deps"] / feats["sched_origin_deps"]
    route_block = train.groupby(["origin", "dest"]).block.median()
    flight_block = train.groupby(["airline", "fn", "origin", "dest"]).block.median()
    rb = look(route_block, ["origin", "dest"])
    fb = look(flight_block, ["airline", "fn", "origin", "dest"])
    feats["sched_block_vs_route"] = fb - rb
    feats["sched_route_block"] = rb
    arr_hour = ((both.dep_min.to_numpy() + np.nan_to_num(rb, nan=120)) // 60 % 24).astype(np.int8)
    arr_vol = train.assign(ah=((train.dep_min + train.block) // 60 % 24)).groupby(["dest", "ah"]).size() / days
    tmp = pd.DataFrame({"dest": both.dest, "ah": arr_hour})
    feats["sched_dest_arr_hour"] = tmp.merge(arr_vol.rename("v").reset_index(), on=["dest", "ah"], how="left")["v"].to_numpy()
    # The flight number's day: legs per day and this leg's position, typical in the fitting months.
    tr = train[["date", "airline", "fn", "origin", "dest", "dep_min"]].copy()
    tr["pos"] = tr.groupby(["date", "airline", "fn"], observed=True).dep_min.rank(method="first")
    tr["nlegs"] = tr.groupby(["date", "airline", "fn"], observed=True).dep_min.transform("size")
    fk = ["airline", "fn", "origin", "dest"]
    feats["sched_flight_pos"] = look(tr.groupby(fk).pos.mean(), fk)
    feats["sched_flight_nlegs"] = look(tr.groupby(fk).nlegs.mean(), fk)
    feats["sched_flight_days"] = look(tr.groupby(fk).size() / days, fk)
    # Raw quote facts.
    feats["dep_min"] = both.dep_min.to_numpy()
    feats["hour"] = both.hour.to_numpy()
    feats["dow"] = both.dow.to_numpy()
    feats["dom"] = both.dom.to_numpy()
    feats["distance"] = both.distance.to_numpy()
    feats["fn"] = both.fn.to_numpy()
    airline_code = pd.Categorical(both.airline).codes
    feats["airline_cat"] = airline_code
    for side in ("origin", "dest"):  # at most 255 categories: the 250 busiest, the rest one code
        top = train[side].value_counts().index[:250]
        feats[f"{side}_cat"] = pd.Categorical(both[side].where(both[side].isin(top), "~"), categories=list(top) + ["~"]).codes
    X = pd.DataFrame(feats)
    return X.iloc[:n_tr].reset_index(drop=True), X.iloc[n_tr:].reset_index(drop=True), fold[:n_tr]


GROUPS = {
    "te": lambda c: any(c.startswith(k + "_") and not c.endswith("_cat") for k in TE_KEYS),
    "te_flight": lambda c: c.startswith("flight_"),
    "te_route": lambda c: c.startswith(("airline_route_", "route_")),
    "te_hour": lambda c: c.startswith(("origin_hour_", "airline_hour_", "airline_origin_hour_")),
    "te_dow": lambda c: c.endswith("_dow") or "_dow_" in c,
    "sched": lambda c: c.startswith("sched_"),
    "dom": lambda c: c == "dom",
    "cats": lambda c: c.endswith("_cat") or c == "fn",
}


def logloss(p, y):
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def run(split, drop):
    fit_months, eval_month = SPLITS[split]
    t0 = time.time()
    train, test = load(fit_months), load([eval_month])
    Xtr, Xte, fold_tr = add_features(train, test)
    dropped = [c for c in Xtr.columns if any(GROUPS[g](c) for g in drop)]
    Xtr, Xte = Xtr.drop(columns=dropped), Xte.drop(columns=dropped)
    cat = [c.endswith("_cat") for c in Xtr.columns]
    print(f"# {split}: {len(Xtr)} fitting legs, {len(Xte)} held out, {Xtr.shape[1]} features"
          f"{' (dropped ' + ','.join(drop) + ')' if drop else ''}; features {time.time() - t0:.0f} s", flush=True)
    rows = []
    for event in EVENTS:
        t1 = time.time()
        y, yt = train[event].to_numpy(), test[event].to_numpy()
        # Early stopping on whole held-out dates of the fitting months (a random 10 % of legs shares
        # its days' weather with the legs fitted and never stops): fit on the other dates, keep the
        # number of trees that scores best on those dates.
        val = fold_tr == 0
        clf = HistGradientBoostingClassifier(
            learning_rate=0.1, max_iter=200, max_leaf_nodes=31, min_samples_leaf=1000, l2_regularization=1.0,
            categorical_features=cat, early_stopping=False, random_state=10,
        )
        clf.fit(Xtr[~val], y[~val])
        losses = [logloss(pv[:, 1], y[val]) for pv in clf.staged_predict_proba(Xtr[val])]
        best = int(np.argmin(losses))
        p = next(pt for i, pt in enumerate(clf.staged_predict_proba(Xte)) if i == best)[:, 1]
        base = y.mean()
        ll, llb = logloss(p, yt), logloss(np.full_like(p, base), yt)
        row = dict(split=split, event=event, auc=roc_auc_score(yt, p), gain=1 - ll / llb,
                   ae=yt.sum() / p.sum(), iters=best + 1, secs=time.time() - t1)
        rows.append(row)
        print(f"{split} {event}: AUC {row['auc']:.3f}, log-loss gain {100 * row['gain']:.1f} %, "
              f"A/E {row['ae']:.2f}, {row['iters']} trees, {row['secs']:.0f} s", flush=True)
    return rows


if __name__ == "__main__":
    args = sys.argv[1:]
    drop = []
    if "--drop" in args:
        i = args.index("--drop")
        drop = args[i + 1].split(",")
        args = args[:i] + args[i + 2:]
    for split in args or ["janfeb-mar"]:
        run(split, drop)
