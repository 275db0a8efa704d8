// fields
    private transient Object g_TWO_HOURS;
    private transient Object g_END_OF_INPUT;
// init
        g_TWO_HOURS = (Object) Double.valueOf((((2.0 * 60.0) * 60.0) * 1000.0));
        g_END_OF_INPUT = (Object) Double.valueOf(9007199254740991.0);
// methods
// defaults
JsRt.obj("deadline", ((Object) null))
// eval
        Object v_silence = st_0;
        if ((!(JsRt.get(v_silence, "deadline") == null) && JsRt.lt(JsRt.time(cx.timeContext(Long.class).time()), JsRt.get(v_silence, "deadline")))) {
            JsRt.clearTimer(cx.timeContext(Long.class), JsRt.get(v_silence, "deadline"));
        }
        JsRt.set(v_silence, "deadline", JsRt.add(JsRt.time(cx.timeContext(Long.class).time()), (Object) Double.valueOf(((((2.0 * 60.0) * 60.0) * 1000.0)))));
        JsRt.timer(cx.timeContext(Long.class), null, JsRt.get(v_silence, "deadline"));
// onTimer
        if (JsRt.seq(JsRt.time(cx.timeContext(Long.class).currentWatermark()), g_END_OF_INPUT)) {
            if (JsRt.truthy(Boolean.TRUE)) return;
        }
        out(JsRt.obj("last_departure", JsRt.newDate((Object) Double.valueOf((JsRt.num(JsRt.time(cx.timeContext(Long.class).time())) - ((((2.0 * 60.0) * 60.0) * 1000.0)))))));
