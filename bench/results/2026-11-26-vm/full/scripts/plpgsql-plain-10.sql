SELECT plain(10, :client_id);
