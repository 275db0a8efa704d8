// fields
    private transient Object g_LATE;
    private transient JsRt.Fields fields_0;
// init
        g_LATE = (Object) Double.valueOf(30.0);
        fields_0 = new JsRt.Fields("flights", "delay", "date");
// methods
// defaults
JsRt.obj("start", ((Object) null), "delays", JsRt.arr())
// eval
        Object v_streak = st_0;
        if (((JsRt.field(cx, row_0, fields_0, 0) == null) || (JsRt.num(JsRt.field(cx, row_0, fields_0, 0)) <= 30.0))) {
            JsRt.set(v_streak, "start", ((Object) null));
            JsRt.set(v_streak, "delays", JsRt.arr());
            if (JsRt.truthy(Boolean.TRUE)) return;
        }
        if ((JsRt.length(JsRt.get(v_streak, "delays")) == 0.0)) {
            JsRt.set(v_streak, "start", JsRt.field(cx, row_0, fields_0, 1));
        }
        JsRt.push(JsRt.get(v_streak, "delays"), JsRt.field(cx, row_0, fields_0, 0));
        if ((JsRt.length(JsRt.get(v_streak, "delays")) == 3.0)) {
            out(JsRt.obj("streak_start", JsRt.get(v_streak, "start"), "delays", JsRt.get(v_streak, "delays")));
        }
// onTimer
